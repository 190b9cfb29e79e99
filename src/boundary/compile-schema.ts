/**
 * One entry for the three schema forms a tool may declare — a field spec, a JSON Schema object, a
 * Standard Schema validator — compiled once into a {@link CompiledSchema}.
 */

import { GuardError } from '../errors.js';
import { compileWithAjv } from './ajv-compile.js';
import { mapAjvErrors } from './ajv-issues.js';
import { SchemaDefinitionError } from './errors.js';
import { fieldSpecToJsonSchema, type JsonSchemaObject } from './field-spec.js';
import type { FieldSpec, InferFieldSpec } from './field-spec-types.js';
import { describeValue, type ValidationIssue, type ValidationResult } from './issues.js';
import { isStandardSchema, mapStandardIssues, type StandardOutput, type StandardSchemaV1 } from './standard-schema.js';

/** Any schema a tool may declare. */
export type ToolSchema = FieldSpec | JsonSchemaObject | StandardSchemaV1;

/** Which of the three forms a schema is. */
export type SchemaKind = 'field_spec' | 'json_schema' | 'standard_schema';

/** A schema compiled once; validating with it allocates only the result. */
export interface CompiledSchema<T = unknown> {
  readonly kind: SchemaKind;
  /** The JSON Schema to advertise to a model (tool parameters); `undefined` for a Standard Schema. */
  readonly jsonSchema: JsonSchemaObject | undefined;
  /** Validate synchronously. An async Standard Schema yields an `async_schema` issue; never throws. */
  validate(value: unknown): ValidationResult<T>;
  /** Validate, awaiting an async Standard Schema; never rejects. */
  validateAsync(value: unknown): Promise<ValidationResult<T>>;
}

/** The value type a schema produces: inferred for field specs and Standard Schemas, else `unknown`. */
export type SchemaOutput<S> =
  S extends CompiledSchema<infer T>
    ? T
    : S extends StandardSchemaV1
      ? StandardOutput<S>
      : S extends FieldSpec
        ? InferFieldSpec<S>
        : unknown;

const compiledSchemas = new WeakSet<object>();
const cache = new WeakMap<object, CompiledSchema>();

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

// JSON Schema keywords (draft-07 to 2020-12, plus common annotations) that mark an object as a JSON Schema.
const JSON_SCHEMA_KEYWORDS = new Set(
  [
    'type properties required additionalProperties patternProperties propertyNames minProperties',
    'maxProperties dependencies dependentRequired dependentSchemas unevaluatedProperties items',
    'prefixItems additionalItems contains enum const anyOf oneOf allOf not if then else definitions',
    'title description default examples format pattern minLength maxLength minimum maximum minItems',
    'maxItems uniqueItems multipleOf exclusiveMinimum exclusiveMaximum',
  ]
    .join(' ')
    .split(' '),
);

function isFieldDefShaped(value: unknown): boolean {
  return isPlainObject(value) && typeof value.type === 'string';
}

/**
 * Tell the three forms apart. A Standard Schema has `~standard` (objects and functions alike). A
 * plain object is a JSON Schema when a key starts with `$`, or when a JSON Schema keyword holds
 * something that is not a field definition (`type: 'object'`, `required: [...]`); otherwise it is
 * a field spec — so `{}` means "no arguments", and a field spec with a malformed field is reported
 * as such instead of as a strange JSON Schema.
 */
export function detectSchemaKind(schema: unknown): SchemaKind {
  try {
    if (isStandardSchema(schema)) return 'standard_schema';
    if (!isPlainObject(schema)) {
      throw new SchemaDefinitionError(
        '',
        `expected a field spec, a JSON Schema object or a Standard Schema validator, got ${describeValue(schema)}`,
      );
    }
    for (const key of Object.keys(schema)) {
      if (key.startsWith('$')) return 'json_schema';
      if (JSON_SCHEMA_KEYWORDS.has(key) && !isFieldDefShaped(schema[key])) return 'json_schema';
    }
    return 'field_spec';
  } catch (cause) {
    throw unreadableSchema(cause);
  }
}

function asyncIssue(): ValidationIssue {
  return {
    code: 'async_schema',
    path: [],
    expected: 'a synchronous schema',
    actual: 'a schema that validates asynchronously',
    message: 'The schema validates asynchronously; use `validateAsync`',
  };
}

function thrownIssue(error: unknown): ValidationIssue {
  const reason = error instanceof Error ? error.message : String(error);
  return {
    code: 'invalid_value',
    path: [],
    expected: 'a value',
    actual: 'unknown',
    message: `The schema threw: ${reason}`,
  };
}

function fromAjv<T>(kind: SchemaKind, jsonSchema: JsonSchemaObject, foreign = false): CompiledSchema<T> {
  if (jsonSchema.$async === true)
    throw new SchemaDefinitionError('/$async', 'asynchronous JSON Schemas are not supported');
  const check = compileWithAjv(jsonSchema, foreign ? 'foreign' : kind === 'field_spec' ? 'field_spec' : 'json_schema');
  function validate(value: unknown): ValidationResult<T> {
    try {
      if (check(value)) return { ok: true, value: value as T };
      return { ok: false, issues: mapAjvErrors(check.errors ?? [], jsonSchema, value) };
    } catch (error) {
      return { ok: false, issues: [thrownIssue(error)] };
    }
  }
  return { kind, jsonSchema, validate, validateAsync: async (value) => validate(value) };
}

function fromStandard<T>(schema: StandardSchemaV1): CompiledSchema<T> {
  const props = schema['~standard'];
  function settle(value: unknown, result: Awaited<ReturnType<typeof props.validate>>): ValidationResult<T> {
    if (result.issues === undefined) return { ok: true, value: result.value as T };
    return { ok: false, issues: mapStandardIssues(value, result.issues) };
  }
  function validate(value: unknown): ValidationResult<T> {
    try {
      const result = props.validate(value);
      if (result instanceof Promise) {
        result.catch(() => undefined); // nobody awaits it; a rejection must not go unhandled
        return { ok: false, issues: [asyncIssue()] };
      }
      return settle(value, result);
    } catch (error) {
      return { ok: false, issues: [thrownIssue(error)] };
    }
  }
  async function validateAsync(value: unknown): Promise<ValidationResult<T>> {
    try {
      return settle(value, await props.validate(value));
    } catch (error) {
      return { ok: false, issues: [thrownIssue(error)] };
    }
  }
  return { kind: 'standard_schema', jsonSchema: undefined, validate, validateAsync };
}

/** True for a value returned by {@link compileSchema}. */
export function isCompiledSchema(value: unknown): value is CompiledSchema {
  return typeof value === 'object' && value !== null && compiledSchemas.has(value);
}

/**
 * Compile a field spec, a JSON Schema or a Standard Schema once. A malformed schema throws
 * {@link SchemaDefinitionError} here, not on first use. Compiling a compiled schema returns it.
 *
 * @example
 * const schema = compileSchema({ customer_id: { type: 'string', pattern: '^c\\d+$' } });
 * schema.validate({ customer_id: 'c42' }); // { ok: true, value: { customer_id: 'c42' } }
 */
export function compileSchema<const S extends ToolSchema | CompiledSchema>(schema: S): CompiledSchema<SchemaOutput<S>> {
  if (isCompiledSchema(schema)) return schema as CompiledSchema<SchemaOutput<S>>;
  const cached = cache.get(schema);
  if (cached !== undefined) return cached as CompiledSchema<SchemaOutput<S>>;
  try {
    return compileFresh(schema);
  } catch (cause) {
    throw unreadableSchema(cause);
  }
}

/**
 * Compile a JSON Schema another program wrote (an MCP server's `inputSchema`) as JSON Schema reads
 * it: an unknown keyword is an annotation and an unknown `format` is not asserted. A later
 * {@link compileSchema} of the same object returns this compilation; the project's own schemas go
 * through `compileSchema` alone, which refuses both (a typo must not loosen validation).
 */
export function compileForeignSchema(schema: JsonSchemaObject): CompiledSchema {
  const cached = cache.get(schema);
  if (cached !== undefined) return cached;
  let compiled: CompiledSchema;
  try {
    compiled = fromAjv('json_schema', schema, true);
  } catch (cause) {
    throw unreadableSchema(cause);
  }
  Object.freeze(compiled);
  compiledSchemas.add(compiled);
  cache.set(schema, compiled);
  return compiled;
}

/** A schema whose reading threw (a getter, a Proxy trap): a {@link SchemaDefinitionError}, GuardErrors as they are. */
function unreadableSchema(cause: unknown): GuardError {
  if (cause instanceof GuardError) return cause;
  const detail = cause instanceof Error ? `: ${cause.message.slice(0, 200)}` : '';
  return new SchemaDefinitionError('', `the schema cannot be read${detail}`, { cause });
}

function compileFresh<const S extends ToolSchema | CompiledSchema>(schema: S): CompiledSchema<SchemaOutput<S>> {
  const kind = detectSchemaKind(schema);
  const compiled: CompiledSchema<SchemaOutput<S>> =
    kind === 'standard_schema'
      ? fromStandard(schema as StandardSchemaV1)
      : fromAjv(
          kind,
          kind === 'field_spec' ? fieldSpecToJsonSchema(schema as FieldSpec) : (schema as JsonSchemaObject),
        );
  Object.freeze(compiled);
  compiledSchemas.add(compiled);
  cache.set(schema, compiled);
  return compiled;
}
