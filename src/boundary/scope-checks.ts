/**
 * A bounded tool's scope: which arguments hold paths and where they may point, and which hold
 * entity ids and what form they must have. Checked when the tool is defined and on every call.
 */
import { isAbsolute } from 'node:path';
import { type ToolBoundaryError, ToolDefinitionError } from './errors.js';
import { article, toJsonPointer } from './issues.js';
import { resolveScopedPath, type ScopedPathResult } from './scoped-path.js';
import { scopeViolation } from './violations.js';

/** Scope options of `bounded`. */
export interface ScopeOptions {
  /** Absolute roots that path arguments must stay inside (symlinks resolved). `[]` refuses every path. */
  readonly allowedPaths?: readonly string[];
  /** Top-level arguments that hold a path (a string, or an array of strings). */
  readonly pathParams?: readonly string[];
  /** Top-level arguments that hold an entity id, and the pattern the id must match. */
  readonly entityPattern?: Readonly<Record<string, RegExp | string>>;
}

/** Scope options checked and compiled. */
export interface CompiledScope {
  readonly roots: readonly string[];
  readonly pathParams: readonly string[];
  readonly entities: readonly (readonly [param: string, pattern: RegExp])[];
}

/** Top-level field name → its JSON Schema, when the schema lists every field it accepts. */
export type DeclaredFields = ReadonlyMap<string, unknown>;

const PATH_TYPES = ['string'];
const ENTITY_TYPES = ['string', 'integer', 'number'];

function typeOf(schema: unknown): unknown {
  return schema !== null && typeof schema === 'object' ? (schema as { type?: unknown }).type : undefined;
}

function checkDeclared(
  tool: string,
  option: string,
  param: string,
  declared: DeclaredFields | undefined,
  types: readonly string[],
): void {
  if (declared === undefined) return;
  if (!declared.has(param))
    throw new ToolDefinitionError(tool, option, `\`${param}\` is not an argument the schema declares`);
  const schema = declared.get(param);
  const type = typeOf(schema) === 'array' ? typeOf((schema as { items?: unknown }).items) : typeOf(schema);
  if (typeof type === 'string' && !types.includes(type)) {
    const list = types.map((t) => `\`${t}\``).join(', ');
    throw new ToolDefinitionError(
      tool,
      option,
      `\`${param}\` is ${article(type)} \`${type}\`; expected ${list} (or an array of them)`,
    );
  }
}

function compilePattern(tool: string, param: string, pattern: RegExp | string): RegExp {
  if (pattern instanceof RegExp) {
    // `g` and `y` make `test` stateful (lastIndex): the same id would pass, then fail.
    return /[gy]/.test(pattern.flags) ? new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, '')) : pattern;
  }
  if (typeof pattern !== 'string') {
    throw new ToolDefinitionError(tool, `entityPattern.${param}`, 'must be a RegExp or a string');
  }
  try {
    return new RegExp(pattern, 'u');
  } catch (error) {
    throw new ToolDefinitionError(tool, `entityPattern.${param}`, `\`${pattern}\` is not a valid regular expression`, {
      cause: error,
    });
  }
}

/** Check and compile scope options; a mistake throws {@link ToolDefinitionError} now, not on a call. */
export function compileScope(tool: string, options: ScopeOptions, declared: DeclaredFields | undefined): CompiledScope {
  const pathParams = [...(options.pathParams ?? [])];
  const roots = [...(options.allowedPaths ?? [])];
  if (options.allowedPaths !== undefined && pathParams.length === 0) {
    throw new ToolDefinitionError(tool, 'allowedPaths', 'has no effect without `pathParams`');
  }
  if (pathParams.length > 0 && options.allowedPaths === undefined) {
    throw new ToolDefinitionError(tool, 'pathParams', 'needs `allowedPaths` (the roots the paths must stay inside)');
  }
  for (const root of roots) {
    if (typeof root !== 'string' || !isAbsolute(root) || root.includes('\0')) {
      throw new ToolDefinitionError(tool, 'allowedPaths', `\`${String(root)}\` is not an absolute path`);
    }
  }
  for (const param of pathParams) checkDeclared(tool, 'pathParams', param, declared, PATH_TYPES);
  const entities = Object.entries(options.entityPattern ?? {}).map(([param, pattern]) => {
    checkDeclared(tool, 'entityPattern', param, declared, ENTITY_TYPES);
    return [param, compilePattern(tool, param, pattern)] as const;
  });
  return Object.freeze({ roots, pathParams, entities });
}

function memberOf(args: unknown, param: string): unknown {
  if (args === null || typeof args !== 'object' || !Object.hasOwn(args, param)) return undefined;
  return (args as Record<string, unknown>)[param];
}

/** Every value of an argument that is one value or an array of them, with its JSON pointer. */
function valuesOf(param: string, value: unknown): [string, unknown][] {
  if (Array.isArray(value)) return value.map((item, index) => [toJsonPointer([param, index]), item]);
  return [[toJsonPointer([param]), value]];
}

/** The first entity id that does not match its pattern, as a violation; `undefined` when all match. */
export function checkEntities(tool: string, scope: CompiledScope, args: unknown): ToolBoundaryError | undefined {
  for (const [param, pattern] of scope.entities) {
    const value = memberOf(args, param);
    if (value === undefined) continue; // absence is the schema's business
    for (const [field, item] of valuesOf(param, value)) {
      const text =
        typeof item === 'string' ? item : typeof item === 'number' && Number.isFinite(item) ? String(item) : null;
      if (text !== null && pattern.test(text)) continue;
      return scopeViolation({
        violation: 'scope_entity_pattern',
        tool,
        field,
        value: item,
        expected: `an id matching \`${pattern.source}\``,
        detail: `the id does not match \`${pattern.source}\``,
      });
    }
  }
  return undefined;
}

async function resolveInRoots(roots: readonly string[], candidate: unknown): Promise<ScopedPathResult | undefined> {
  let last: ScopedPathResult | undefined;
  for (const root of roots) {
    last = await resolveScopedPath(root, candidate);
    if (last.ok) return last;
  }
  return last;
}

/**
 * Resolve every path argument inside the allowed roots. Returns the arguments with each path
 * replaced by its resolved real path (so the tool opens what was checked), or a violation. A
 * relative path is resolved against the first root.
 */
export async function checkPaths(
  tool: string,
  scope: CompiledScope,
  args: unknown,
): Promise<{ readonly args: unknown } | { readonly error: ToolBoundaryError }> {
  if (scope.pathParams.length === 0 || args === null || typeof args !== 'object') return { args };
  const next: Record<string, unknown> = { ...(args as Record<string, unknown>) };
  const expected = `a path inside ${scope.roots.length === 0 ? 'no directory (paths are refused)' : scope.roots.map((r) => `\`${r}\``).join(' or ')}`;
  for (const param of scope.pathParams) {
    const value = memberOf(args, param);
    if (value === undefined) continue;
    const resolved: unknown[] = [];
    for (const [field, item] of valuesOf(param, value)) {
      const roots = typeof item === 'string' && !isAbsolute(item) ? scope.roots.slice(0, 1) : scope.roots;
      const result = await resolveInRoots(roots, item);
      if (result === undefined || !result.ok) {
        const detail = result === undefined ? 'no root is allowed' : result.message;
        return { error: scopeViolation({ violation: 'scope_path', tool, field, value: item, expected, detail }) };
      }
      resolved.push(result.path);
    }
    next[param] = Array.isArray(value) ? resolved : resolved[0];
  }
  return { args: next };
}
