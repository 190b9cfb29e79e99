/**
 * Tool definitions checked and compiled once: names, schemas, budgets, time and size limits.
 */
import { type CompiledSchema, compileSchema } from '../../boundary/compile-schema.js';
import type { JsonSchemaObject } from '../../boundary/field-spec.js';
import { canonicalJson } from '../../core/canonical-json.js';
import { integerOption } from '../../option-checks.js';
import { invalidHarnessOption } from '../errors.js';
import type { ResolvedLimits } from '../limits.js';
import type { ModelToolDefinition } from '../models/types.js';
import { type AgentTool, ToolFailureMode } from './agent-tool.js';

/** A tool with its settings resolved. */
export interface CompiledTool {
  readonly tool: AgentTool;
  readonly name: string;
  /** As offered to the model: canonical schema, so requests are byte-stable. */
  readonly definition: ModelToolDefinition;
  readonly schema: CompiledSchema;
  readonly requiredCapabilities: readonly string[];
  readonly maxCalls: number;
  readonly timeoutMs: number;
  readonly maxResultBytes: number;
  readonly failureMode: ToolFailureMode;
  readonly parallelSafe: boolean;
  /** Whether a result is kept as evidence under a ref (false only for `retrieve_evidence` itself). */
  readonly keepsEvidence: boolean;
  /** The tool charges its own budget once its own checks pass (renders, inspections); no call budget applies. */
  readonly selfCharged: boolean;
  /** A check of the valid input that runs before anything else (middleware included); returns the problem. */
  readonly precheck: ((input: unknown) => string | null) | undefined;
}

/** Settings only built-in tools have. */
export interface BuiltInSettings {
  readonly keepsEvidence?: boolean;
  readonly selfCharged?: boolean;
  readonly precheck?: (input: unknown) => string | null;
}

/** The tool name pattern: a letter, then letters, digits, `_` or `-`; 64 characters at most. */
export const TOOL_NAME_PATTERN: RegExp = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

// Tool schemas are compiled once per schema object: built-in tools are rebuilt for every run.
const compiledSchemas = new WeakMap<object, { canonical: JsonSchemaObject; schema: CompiledSchema }>();

function compileInput(inputSchema: JsonSchemaObject): { canonical: JsonSchemaObject; schema: CompiledSchema } {
  let compiled = compiledSchemas.get(inputSchema);
  if (compiled === undefined) {
    const canonical = JSON.parse(canonicalJson(inputSchema)) as JsonSchemaObject;
    compiled = { canonical, schema: compileSchema(canonical) };
    compiledSchemas.set(inputSchema, compiled);
  }
  return compiled;
}

function positive(option: string, value: number | undefined, fallback: number): number {
  return value === undefined ? fallback : integerOption(option, value);
}

/** Check and compile one tool; throws {@link InvalidOptionError} naming the offending option. */
export function compileTool(
  tool: AgentTool,
  limits: ResolvedLimits,
  where: string,
  settings: BuiltInSettings = {},
): CompiledTool {
  if (typeof tool !== 'object' || tool === null) throw invalidHarnessOption(where, 'expected a tool object');
  const name = tool.name;
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
    throw invalidHarnessOption(`${where}.name`, `\`${String(name)}\` does not match ${TOOL_NAME_PATTERN}`);
  }
  const at = `tool \`${name}\``;
  if (typeof tool.description !== 'string' || tool.description.trim() === '') {
    throw invalidHarnessOption(`${at}.description`, 'expected a non-empty string');
  }
  if (typeof tool.execute !== 'function') throw invalidHarnessOption(`${at}.execute`, 'expected a function');
  const inputSchema = tool.inputSchema;
  if (typeof inputSchema !== 'object' || inputSchema === null || inputSchema.type !== 'object') {
    throw invalidHarnessOption(`${at}.inputSchema`, 'expected a JSON Schema with `type: "object"`');
  }
  let schema: CompiledSchema;
  let canonical: JsonSchemaObject;
  try {
    ({ canonical, schema } = compileInput(inputSchema));
  } catch (error) {
    throw invalidHarnessOption(`${at}.inputSchema`, (error as Error).message, { cause: error });
  }
  const failureMode = tool.failureMode ?? ToolFailureMode.return_error;
  if (failureMode !== 'return_error' && failureMode !== 'raise') {
    throw invalidHarnessOption(
      `${at}.failureMode`,
      `expected \`return_error\` or \`raise\`, got \`${String(failureMode)}\``,
    );
  }
  const required = tool.requiredCapabilities ?? [];
  if (!Array.isArray(required) || required.some((c) => typeof c !== 'string' || c === '')) {
    throw invalidHarnessOption(`${at}.requiredCapabilities`, 'expected an array of non-empty strings');
  }
  return Object.freeze({
    tool,
    name,
    definition: Object.freeze({ name, description: tool.description, inputSchema: canonical }),
    schema,
    requiredCapabilities: Object.freeze([...required]),
    maxCalls: positive(`${at}.maxCallsPerRun`, tool.maxCallsPerRun, limits.maxCallsPerTool),
    timeoutMs: positive(`${at}.timeoutMs`, tool.timeoutMs, limits.toolTimeoutMs),
    maxResultBytes: positive(`${at}.maxResultBytes`, tool.maxResultBytes, limits.maxToolResultBytes),
    failureMode,
    parallelSafe: tool.parallelSafe === true,
    keepsEvidence: settings.keepsEvidence ?? true,
    selfCharged: settings.selfCharged ?? false,
    precheck: settings.precheck,
  });
}

/** Compile every tool; names must be unique and must not take a built-in's name. */
export function compileTools(
  tools: readonly AgentTool[],
  limits: ResolvedLimits,
  reserved: readonly string[],
): readonly CompiledTool[] {
  if (!Array.isArray(tools)) throw invalidHarnessOption('tools', 'expected an array of tools');
  const seen = new Set<string>();
  return tools.map((tool, index) => {
    const compiled = compileTool(tool, limits, `tools[${index}]`);
    if (reserved.includes(compiled.name)) {
      throw invalidHarnessOption(`tools[${index}].name`, `\`${compiled.name}\` is a built-in tool's name`);
    }
    if (seen.has(compiled.name))
      throw invalidHarnessOption(`tools[${index}].name`, `\`${compiled.name}\` is defined twice`);
    seen.add(compiled.name);
    return compiled;
  });
}

/** The tools a run with `capabilities` may use, ordered by name. */
export function offeredTools(tools: readonly CompiledTool[], capabilities: ReadonlySet<string>): CompiledTool[] {
  return tools
    .filter((tool) => tool.requiredCapabilities.every((capability) => capabilities.has(capability)))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
