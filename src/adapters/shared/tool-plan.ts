/**
 * Per-tool settings of a guard pipeline, compiled once: argument validation (a `bounded` check),
 * output validation, the ledger spec and the TTL cache.
 */
import { type AnyBoundedTool, bounded, isBoundedTool, sideEffectClassOf } from '../../boundary/bounded.js';
import type { CompiledSchema, ToolSchema } from '../../boundary/compile-schema.js';
import { compileSchema } from '../../boundary/compile-schema.js';
import { ToolDefinitionError } from '../../boundary/errors.js';
import type { ScopeOptions } from '../../boundary/scope-checks.js';
import { protect } from '../../context/protect.js';
import type { Clock } from '../../core/clock.js';
import type { ToolSpec } from '../../ledger/types.js';
import { isRerunnable, type SideEffectClass } from '../../records/envelope.js';

/** Ledger options of one tool: everything of a `ToolSpec` but its name and class. */
export type LedgerToolOptions = Omit<ToolSpec, 'name' | 'sideEffectClass'>;

/** A per-session TTL cache in front of a `read` tool (see `protect`). */
export interface ToolCacheOptions {
  /** How long a result stays fresh. */
  readonly ttlMs: number;
  /** Most entries one session's cache holds. */
  readonly maxEntries: number;
  /** The argument naming the entity the result describes; default: the whole arguments. */
  readonly entityParam?: string;
  /** Derive the entity from the (validated) arguments instead. */
  readonly entityFrom?: (args: unknown) => unknown;
  readonly clock?: Clock;
}

/** What a pipeline knows about one tool. Every field is optional; an undeclared tool is a write. */
export interface GuardedToolSpec extends ScopeOptions {
  /**
   * Decides ledger gates and whether a failed body may run again. Default `non_idempotent_mutate`:
   * a tool nobody declared is treated as a write. Aliases (`read_only`, `payment`) accepted.
   */
  readonly sideEffectClass?: SideEffectClass | string;
  /** Arguments: a field spec, a JSON Schema or a Standard Schema (zod 4). Checked before the ledger claim. */
  readonly schema?: ToolSchema;
  /** Checked after the body ran, before the ledger records completion. */
  readonly outputSchema?: ToolSchema;
  /** A `bounded` tool whose `check`, `outputSchema` and class are used instead of the three fields above. */
  readonly bounded?: AnyBoundedTool;
  /** Ledger options, or `false` to run this tool outside the ledger. */
  readonly ledger?: false | LedgerToolOptions;
  /** A TTL cache for a `read` tool. */
  readonly cache?: ToolCacheOptions;
}

/** A compiled tool spec. */
export interface ToolPlan {
  readonly name: string;
  readonly sideEffectClass: SideEffectClass;
  readonly rerunnable: boolean;
  /** Validate and scope-check arguments; throws `ToolBoundaryError`. `undefined` when nothing is declared. */
  readonly check: ((args: unknown) => Promise<unknown>) | undefined;
  readonly output: CompiledSchema | undefined;
  readonly ledgerSpec: ToolSpec | null;
  /** Fetch through the cache: `run` is called on a miss. */
  readonly cached: ((args: unknown, run: () => Promise<unknown>) => Promise<unknown>) | undefined;
}

const SCOPE_KEYS = ['allowedPaths', 'pathParams', 'entityPattern'] as const;

function boundedOf(name: string, spec: GuardedToolSpec): AnyBoundedTool | undefined {
  if (spec.bounded !== undefined) {
    if (!isBoundedTool(spec.bounded)) throw new ToolDefinitionError(name, 'bounded', 'must be made by `bounded`');
    if (spec.schema !== undefined || spec.outputSchema !== undefined || spec.sideEffectClass !== undefined) {
      throw new ToolDefinitionError(name, 'bounded', 'takes its schemas and class from the bounded tool; drop them');
    }
    if (spec.bounded.toolName !== name) {
      throw new ToolDefinitionError(name, 'bounded', `is the bounded tool \`${spec.bounded.toolName}\``);
    }
    return spec.bounded;
  }
  if (spec.schema === undefined) {
    const scoped = SCOPE_KEYS.find((key) => spec[key] !== undefined);
    if (scoped !== undefined) throw new ToolDefinitionError(name, scoped, 'needs a `schema`');
    return undefined;
  }
  const scope: ScopeOptions = {
    ...(spec.allowedPaths === undefined ? {} : { allowedPaths: spec.allowedPaths }),
    ...(spec.pathParams === undefined ? {} : { pathParams: spec.pathParams }),
    ...(spec.entityPattern === undefined ? {} : { entityPattern: spec.entityPattern }),
  };
  return bounded(
    { name, schema: spec.schema, sideEffectClass: sideEffectClassOf(name, spec.sideEffectClass), ...scope },
    () => undefined,
  ) as unknown as AnyBoundedTool;
}

function cacheOf(name: string, sideEffectClass: SideEffectClass, options: ToolCacheOptions | undefined) {
  if (options === undefined) return undefined;
  if (sideEffectClass !== 'read') {
    throw new ToolDefinitionError(name, 'cache', `caches \`read\` tools only; this one is \`${sideEffectClass}\``);
  }
  if (options.entityParam !== undefined && options.entityFrom !== undefined) {
    throw new ToolDefinitionError(name, 'cache', 'takes `entityParam` or `entityFrom`, not both');
  }
  const param = options.entityParam;
  const entityFrom =
    options.entityFrom ??
    (param === undefined
      ? (args: unknown) => args ?? null
      : (args: unknown) => (args as Record<string, unknown> | null | undefined)?.[param]);
  return protect(
    {
      name,
      ttlMs: options.ttlMs,
      maxEntries: options.maxEntries,
      entityFrom,
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    },
    (_args: unknown, run: () => Promise<unknown>) => run(),
  );
}

/** Compile the spec of tool `name` (an empty spec for an undeclared tool). */
export function compileToolPlan(name: string, spec: GuardedToolSpec = {}): ToolPlan {
  const tool = boundedOf(name, spec);
  const sideEffectClass = tool?.sideEffectClass ?? sideEffectClassOf(name, spec.sideEffectClass);
  const output =
    tool !== undefined && spec.bounded !== undefined
      ? tool.outputSchema
      : spec.outputSchema === undefined
        ? undefined
        : compileSchema(spec.outputSchema);
  const ledgerSpec: ToolSpec | null =
    spec.ledger === false ? null : Object.freeze({ ...spec.ledger, name, sideEffectClass });
  const check = tool === undefined ? undefined : async (args: unknown) => (await tool.check(args)).args;
  return Object.freeze({
    name,
    sideEffectClass,
    rerunnable: isRerunnable(sideEffectClass),
    check,
    output,
    ledgerSpec,
    cached: cacheOf(name, sideEffectClass, spec.cache),
  });
}
