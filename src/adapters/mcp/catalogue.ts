/**
 * The catalogue of upstream tools: what the server listed, which of those the client may see and
 * call (allowed, pinned, schemas compiled), and the pipeline spec of each. A tool outside the
 * catalogue is refused; when the pin store cannot be read, every tool is.
 */
import { compileForeignSchema, compileSchema, detectSchemaKind } from '../../boundary/compile-schema.js';
import { fieldSpecToJsonSchema, type JsonSchemaObject } from '../../boundary/field-spec.js';
import type { FieldSpec } from '../../boundary/field-spec-types.js';
import { GuardError } from '../../errors.js';
import type { SideEffectClass } from '../../records/envelope.js';
import { compileToolPlan, type GuardedToolSpec } from '../shared/tool-plan.js';
import type { PinStore } from './pins.js';
import { type McpPolicy, type McpToolPolicy, permissionsOf, sideEffectClassOf, toolPolicy } from './policy.js';
import type { McpToolDefinition } from './types.js';

/** Why a listed tool is not usable. */
export type HiddenReason = 'not_allowed' | 'quarantined' | 'invalid_schema' | 'pin_store_unavailable';

/**
 * A tool the client may not call: code `mcp_tool_<reason>` — `not_allowed` (outside `mcp.allow`),
 * `quarantined` (its definition changed), `invalid_schema`, `pin_store_unavailable`, or `unlisted`
 * (the server does not list it).
 */
export class McpToolHiddenError extends GuardError {
  readonly tool: string;
  readonly reason: HiddenReason | 'unlisted';
  /** The tools the client may use. */
  readonly usable: readonly string[];

  constructor(tool: string, reason: HiddenReason | 'unlisted', detail: string, usable: readonly string[]) {
    super(`mcp_tool_${reason}`, `Tool \`${tool}\` is not usable through this proxy: ${detail}`, {
      llmMessage:
        reason === 'invalid_schema'
          ? `The call to \`${tool}\` was NOT executed: the proxy cannot check its arguments, because its input or output schema does not compile (${detail}). Do not retry it; tell the user`
          : `The call to \`${tool}\` was NOT executed: \`${tool}\` is not a tool you may use. Do not retry it; use one of the tools you were given`,
    });
    this.tool = tool;
    this.reason = reason;
    this.usable = usable;
  }
}

/** One listed tool and what the guards make of it. */
export interface CatalogueEntry {
  readonly definition: McpToolDefinition;
  readonly policy: McpToolPolicy;
  readonly sideEffectClass: SideEffectClass;
  readonly permissions: readonly string[];
  /** Null when the tool is usable. */
  readonly hidden: HiddenReason | null;
  /** The operator's reason a tool is hidden. */
  readonly detail: string | null;
  readonly spec: GuardedToolSpec;
}

/** The tools of one upstream server. */
export interface Catalogue {
  /** Incremented by every change; pipelines are rebuilt when it moves. */
  readonly version: number;
  /** Replace the catalogue with a full listing (`replace`) or merge one page of it. */
  observe(tools: readonly McpToolDefinition[], mode: 'replace' | 'merge'): Promise<void>;
  get(name: string): CatalogueEntry | undefined;
  /** The entries the client may use. */
  usable(): CatalogueEntry[];
  /**
   * The listed tools the client may see, in the order given: the usable ones, and those whose
   * schema does not compile — listed, so that a call to one learns why it is refused.
   */
  visible(tools: readonly McpToolDefinition[]): McpToolDefinition[];
  /** Throws the refusal of a tool the client may not call. */
  assertAllowed(name: string): void;
  /** Mark every tool unusable: a pin store that cannot be read fails closed. */
  failClosed(detail: string): void;
}

function withoutDialect(schema: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

function asJsonSchema(schema: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return detectSchemaKind(schema) === 'field_spec'
    ? (fieldSpecToJsonSchema(schema as FieldSpec) as unknown as Record<string, unknown>)
    : { ...schema };
}

/** MCP's default dialect (since the 2025-11-25 revision) for a schema without `$schema`. */
const MCP_DIALECT = 'https://json-schema.org/draft/2020-12/schema';
/** The dialect of listings written before 2020-12 became the default. */
const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';

/** `$schema` as the upstream wrote it, else `fallback`: the dialect Ajv compiles it in. */
function dialectOf(schema: Readonly<Record<string, unknown>>, fallback: string): { $schema: unknown } {
  return { $schema: Object.hasOwn(schema, '$schema') ? schema.$schema : fallback };
}

/** The upstream `inputSchema` and the policy's schema, both of which the arguments must pass. */
function argumentSchema(tool: McpToolDefinition, own: McpToolPolicy, fallback: string): JsonSchemaObject {
  const upstream = tool.inputSchema ?? { type: 'object' };
  const dialect = dialectOf(upstream, fallback);
  if (own.schema === undefined) return { ...upstream, ...dialect } as JsonSchemaObject;
  return {
    ...dialect,
    allOf: [withoutDialect(upstream), withoutDialect(asJsonSchema(own.schema))],
  } as JsonSchemaObject;
}

/** `structuredContent` against `outputSchema`, unless the result is an error. */
function resultSchema(tool: McpToolDefinition, fallback: string): JsonSchemaObject | undefined {
  const output = tool.outputSchema;
  if (output === undefined) return undefined;
  // `if`/`then`/`else` (not `anyOf`), so an issue names the field of `structuredContent` that broke.
  // Built from entries: a literal `then` key reads as a thenable to the linter.
  return Object.fromEntries([
    ...Object.entries(dialectOf(output, fallback)),
    ['type', 'object'],
    ['if', { properties: { isError: { const: true } }, required: ['isError'] }],
    ['then', {}],
    ['else', { properties: { structuredContent: withoutDialect(output) }, required: ['structuredContent'] }],
  ]) as JsonSchemaObject;
}

function specOf(
  tool: McpToolDefinition,
  own: McpToolPolicy,
  sideEffectClass: SideEffectClass,
  fallback: string,
): GuardedToolSpec {
  const output = resultSchema(tool, fallback);
  return {
    sideEffectClass,
    schema: argumentSchema(tool, own, fallback),
    ...(output === undefined ? {} : { outputSchema: output }),
    // A read has nothing to keep from running twice; a retried read re-reads.
    ledger: sideEffectClass === 'read' ? false : {},
    ...(own.allowedPaths === undefined ? {} : { allowedPaths: own.allowedPaths }),
    ...(own.pathParams === undefined ? {} : { pathParams: own.pathParams }),
  };
}

/**
 * Compile the spec's schemas as the server's: vendor keywords (`x-mcp-header`) and formats Ajv does
 * not know are annotations there. The config's own schema is compiled strictly first.
 */
function compileUpstream(name: string, spec: GuardedToolSpec, own: McpToolPolicy): void {
  if (own.schema !== undefined) compileSchema(asJsonSchema(own.schema) as JsonSchemaObject);
  if (spec.schema !== undefined) compileForeignSchema(spec.schema as JsonSchemaObject);
  if (spec.outputSchema !== undefined) compileForeignSchema(spec.outputSchema as JsonSchemaObject);
  compileToolPlan(name, spec);
}

/**
 * The spec of a tool whose schemas compile: a schema without `$schema` is 2020-12 (MCP's default),
 * or draft-07 when only that compiles it (`items` as an array, from servers older than the default).
 * A schema that compiles in neither is the reason the tool cannot be checked.
 */
function compiledSpec(
  tool: McpToolDefinition,
  own: McpToolPolicy,
  sideEffectClass: SideEffectClass,
): { readonly spec: GuardedToolSpec; readonly error: string | null } {
  const spec = specOf(tool, own, sideEffectClass, MCP_DIALECT);
  try {
    compileUpstream(tool.name, spec, own);
    return { spec, error: null };
  } catch (error) {
    const legacy = specOf(tool, own, sideEffectClass, DRAFT_07);
    try {
      compileUpstream(tool.name, legacy, own);
      return { spec: legacy, error: null };
    } catch {
      return { spec, error: (error as Error).message };
    }
  }
}

/** A catalogue under `policy`; with `pins`, every definition is checked against its pin. */
export function createCatalogue(options: {
  readonly policy: McpPolicy;
  readonly pins: PinStore | undefined;
  /** The upstream server's identity (its `serverInfo.name`), for pin keys. */
  readonly server: () => string;
}): Catalogue {
  const { policy, pins } = options;
  const allow = policy.allow === undefined ? undefined : new Set(policy.allow);
  let entries = new Map<string, CatalogueEntry>();
  let closedBy: string | null = null;
  let version = 0;

  async function entryOf(tool: McpToolDefinition): Promise<CatalogueEntry> {
    const own = toolPolicy(policy, tool.name);
    const sideEffectClass = sideEffectClassOf(tool, own);
    const { spec, error } = compiledSpec(tool, own, sideEffectClass);
    const base = { definition: tool, policy: own, sideEffectClass, permissions: permissionsOf(tool, own), spec };
    if (allow !== undefined && !allow.has(tool.name))
      return { ...base, hidden: 'not_allowed', detail: 'not in `mcp.allow`' };
    if (error !== null) return { ...base, hidden: 'invalid_schema', detail: error };
    if (pins !== undefined && policy.pinning !== false) {
      let status: Awaited<ReturnType<PinStore['check']>>;
      try {
        status = await pins.check(options.server(), tool);
      } catch (error) {
        return { ...base, hidden: 'pin_store_unavailable', detail: (error as Error).message };
      }
      if (status === 'changed') {
        return {
          ...base,
          hidden: 'quarantined',
          detail: 'its definition changed since it was pinned; approve it with `hyphae mcp approve`',
        };
      }
      if (status === 'rejected') {
        return { ...base, hidden: 'quarantined', detail: 'an operator rejected its changed definition' };
      }
    }
    return { ...base, hidden: null, detail: null };
  }

  return {
    get version() {
      return version;
    },
    async observe(tools, mode) {
      const next = mode === 'replace' ? new Map<string, CatalogueEntry>() : new Map(entries);
      for (const tool of tools) {
        if (typeof tool?.name !== 'string') continue;
        next.set(tool.name, await entryOf(tool));
      }
      entries = next;
      version++;
    },
    get: (name) => entries.get(name),
    usable: () => (closedBy === null ? [...entries.values()].filter((entry) => entry.hidden === null) : []),
    visible(tools) {
      if (closedBy !== null) return [];
      return tools.filter((tool) => {
        const hidden = entries.get(tool.name)?.hidden;
        return hidden === null || hidden === 'invalid_schema';
      });
    },
    assertAllowed(name) {
      const usable =
        closedBy === null ? [...entries.values()].filter((e) => e.hidden === null).map((e) => e.definition.name) : [];
      if (closedBy !== null) throw new McpToolHiddenError(name, 'pin_store_unavailable', closedBy, usable);
      const entry = entries.get(name);
      if (entry === undefined) throw new McpToolHiddenError(name, 'unlisted', 'the server does not list it', usable);
      if (entry.hidden !== null) throw new McpToolHiddenError(name, entry.hidden, entry.detail ?? entry.hidden, usable);
    },
    failClosed(detail) {
      closedBy = detail;
      version++;
    },
  };
}
