/**
 * `bounded`: a tool whose arguments are validated, whose paths and entity ids are kept in scope,
 * and whose output is validated — the body never runs on bad input.
 */
import { GuardError } from '../errors.js';
import { optionsOf } from '../invalid-argument.js';
import { resolveSideEffectClass } from '../ledger/resolve-side-effect-class.js';
import type { CallOptions } from '../ledger/types.js';
import { isRerunnable, type SideEffectClass } from '../records/envelope.js';
import { type CompiledSchema, compileSchema, type SchemaOutput, type ToolSchema } from './compile-schema.js';
import { SchemaDefinitionError, ToolDefinitionError } from './errors.js';
import type { JsonSchemaObject } from './field-spec.js';
import type { FieldSpec, InferFieldSpec } from './field-spec-types.js';
import type { ValidationResult } from './issues.js';
import { checkEntities, checkPaths, compileScope, type DeclaredFields, type ScopeOptions } from './scope-checks.js';
import type { StandardInput, StandardSchemaV1 } from './standard-schema.js';
import { inputViolation, outputViolation } from './violations.js';

/** Options of {@link bounded}. */
export interface BoundedOptions<S extends ToolSchema, O extends ToolSchema | undefined> extends ScopeOptions {
  /** Default: the function's name. */
  readonly name?: string;
  /** The arguments: a field spec, a JSON Schema or a Standard Schema. `{}` means "no arguments". */
  readonly schema: S;
  /** Checked after the body ran; a failure is `output_validation_failed`. */
  readonly outputSchema?: O;
  /**
   * Decides whether the body may run again after a failure. Default `non_idempotent_mutate`
   * (never re-run): an undeclared tool is treated as a write. Aliases (`read_only`, `payment`) accepted.
   */
  readonly sideEffectClass?: SideEffectClass | string;
}

declare const checkedBrand: unique symbol;

/** Arguments that passed a tool's `check`; only `check` makes them. */
export interface CheckedArgs<A> {
  readonly tool: string;
  readonly args: A;
  readonly [checkedBrand]: true;
}

/** The value type a schema accepts as input (differs from its output for a transforming Standard Schema). */
export type SchemaInput<S> = S extends StandardSchemaV1
  ? StandardInput<S>
  : S extends FieldSpec
    ? InferFieldSpec<S>
    : unknown;

/** The result of a bounded tool: the output schema's type when it has one, else the body's. */
export type BoundedResult<R, O> = O extends ToolSchema
  ? unknown extends SchemaOutput<O>
    ? Awaited<R>
    : SchemaOutput<O>
  : Awaited<R>;

/** A bounded tool: call it like the body (`(args, options?) => Promise<result>`), or in two steps. */
export interface BoundedTool<A = unknown, R = unknown, I = A> {
  (args: I, options?: CallOptions): Promise<R>;
  readonly toolName: string;
  readonly sideEffectClass: SideEffectClass;
  readonly inputSchema: CompiledSchema<A>;
  readonly outputSchema: CompiledSchema | undefined;
  /** JSON Schema of the arguments, to advertise the tool to a model; `undefined` for a Standard Schema. */
  readonly parameters: JsonSchemaObject | undefined;
  /** Validate and scope-check arguments without running anything; throws `ToolBoundaryError`. */
  check(args: unknown): Promise<CheckedArgs<A>>;
  /**
   * Run the body on checked arguments and validate its output. Arguments of a tool that may not be
   * re-run (any class but `read` and `idempotent_mutate`) can be executed once only.
   */
  execute(checked: CheckedArgs<A>, options?: CallOptions): Promise<R>;
}

/** Any bounded tool, whatever its argument and result types (for registries and helpers). */
export type AnyBoundedTool = BoundedTool<unknown, unknown, never>;

const boundedTools = new WeakSet<object>();

/** True for a tool made by {@link bounded}. */
export function isBoundedTool(value: unknown): value is BoundedTool {
  return typeof value === 'function' && boundedTools.has(value);
}

function compileFor(tool: string, option: string, schema: unknown): CompiledSchema {
  if (schema === undefined) {
    throw new ToolDefinitionError(tool, option, 'is required (use `{}` for a tool without arguments)');
  }
  try {
    return compileSchema(schema as ToolSchema);
  } catch (error) {
    if (!(error instanceof SchemaDefinitionError)) throw error;
    throw new SchemaDefinitionError(error.field, error.problem, { tool, option, cause: error });
  }
}

function declaredFields(schema: CompiledSchema): DeclaredFields | undefined {
  const json = schema.jsonSchema;
  const properties = json?.properties;
  if (json?.additionalProperties !== false || properties === null || typeof properties !== 'object') return undefined;
  return new Map(Object.entries(properties));
}

/** The side-effect class a tool declares (`non_idempotent_mutate` when it declares none). */
export function sideEffectClassOf(tool: string, value: string | undefined): SideEffectClass {
  if (value === undefined) return 'non_idempotent_mutate';
  try {
    return resolveSideEffectClass(value);
  } catch (error) {
    throw new ToolDefinitionError(tool, 'sideEffectClass', (error as Error).message, { cause: error });
  }
}

/**
 * Wrap `fn` in a tool boundary. The schemas and scope options are checked now (a bad spec throws
 * here); on each call the arguments are validated, entity ids matched, paths resolved inside
 * `allowedPaths` (the body gets the resolved real paths), then the body runs and its output is
 * validated. Any input violation throws `ToolBoundaryError` and the body does not run.
 *
 * @example
 * const fetchCustomer = bounded(
 *   { name: 'fetch_customer', sideEffectClass: 'read',
 *     schema: { customer_id: { type: 'string', pattern: '^c\\d+$' } },
 *     outputSchema: { name: { type: 'string' } } },
 *   async ({ customer_id }) => db.customers.get(customer_id),
 * );
 * await fetchCustomer({ customer_id: 'C-1' }); // ToolBoundaryError, violation 'pattern_mismatch'
 */
export function bounded<
  const S extends ToolSchema,
  R,
  A = SchemaOutput<S>,
  const O extends ToolSchema | undefined = undefined,
>(
  given: BoundedOptions<S, O>,
  fn: (args: A, options: CallOptions) => R | Promise<R>,
): BoundedTool<A, BoundedResult<R, O>, SchemaInput<S>> {
  const options = optionsOf('bounded', given);
  if (typeof fn !== 'function') throw new ToolDefinitionError(options.name, 'fn', 'must be a function');
  const name = options.name ?? fn.name;
  if (typeof name !== 'string' || name === '') {
    throw new ToolDefinitionError(undefined, 'name', 'is required when the function has no name');
  }
  const sideEffectClass = sideEffectClassOf(name, options.sideEffectClass);
  const input = compileFor(name, 'schema', options.schema);
  const output =
    options.outputSchema === undefined ? undefined : compileFor(name, 'outputSchema', options.outputSchema);
  const scope = compileScope(name, options, declaredFields(input));
  const rerunnable = isRerunnable(sideEffectClass);
  const issued = new WeakSet<object>();

  function issue(args: unknown): CheckedArgs<A> {
    const checked = Object.freeze({ tool: name, args }) as CheckedArgs<A>;
    issued.add(checked);
    return checked;
  }

  function afterValidation(result: ValidationResult<unknown>): CheckedArgs<A> | Promise<CheckedArgs<A>> {
    if (!result.ok) throw inputViolation(name, result.issues);
    const entityError = checkEntities(name, scope, result.value);
    if (entityError !== undefined) throw entityError;
    if (scope.pathParams.length === 0) return issue(result.value);
    return checkPaths(name, scope, result.value).then((scoped) => {
      if ('error' in scoped) throw scoped.error;
      return issue(scoped.args);
    });
  }

  // Synchronous unless a Standard Schema or a path check needs awaiting: each await is a microtask.
  function prepare(args: unknown): CheckedArgs<A> | Promise<CheckedArgs<A>> {
    if (input.kind === 'standard_schema') return input.validateAsync(args).then(afterValidation);
    return afterValidation(input.validate(args));
  }

  async function check(args: unknown): Promise<CheckedArgs<A>> {
    return prepare(args);
  }

  async function execute(checked: CheckedArgs<A>, callOptions: CallOptions = {}): Promise<BoundedResult<R, O>> {
    if (!issued.has(checked)) {
      throw new GuardError('unchecked_arguments', `Arguments passed to \`${name}\` were not produced by its \`check\``);
    }
    // A body that may have had an effect runs once per check: a second run must be a new decision.
    if (!rerunnable) issued.delete(checked);
    const raw = await fn(checked.args, callOptions);
    if (output === undefined) return raw as BoundedResult<R, O>;
    const result = output.kind === 'standard_schema' ? await output.validateAsync(raw) : output.validate(raw);
    if (!result.ok) throw outputViolation(name, result.issues, sideEffectClass);
    return result.value as BoundedResult<R, O>;
  }

  async function callTool(args: SchemaInput<S>, callOptions?: CallOptions): Promise<BoundedResult<R, O>> {
    const checked = prepare(args);
    return execute(checked instanceof Promise ? await checked : checked, callOptions);
  }
  Object.defineProperty(callTool, 'name', { value: name });
  const tool = Object.assign(callTool, {
    toolName: name,
    sideEffectClass,
    inputSchema: input as CompiledSchema<A>,
    outputSchema: output,
    parameters: input.jsonSchema,
    check,
    execute,
  });
  boundedTools.add(Object.freeze(tool));
  return tool;
}
