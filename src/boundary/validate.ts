/**
 * `validate` / `assertValid`: the safeParse / parse pair over any schema form.
 */
import { type CompiledSchema, compileSchema, type SchemaOutput, type ToolSchema } from './compile-schema.js';
import { ValidationError } from './errors.js';
import type { ValidationResult } from './issues.js';

/**
 * Validate `value` against a field spec, a JSON Schema, a Standard Schema or a compiled schema.
 * The schema is compiled on first use and cached by identity (treat schemas as immutable). Never
 * throws for a bad value; a malformed schema throws `SchemaDefinitionError`.
 *
 * @example
 * const result = validate({ limit: { type: 'integer' } }, { limit: '10' });
 * // { ok: false, issues: [{ code: 'type_mismatch', path: ['limit'], expected: 'integer',
 * //   actual: 'string "10"', message: 'Expected integer, got string "10"' }] }
 */
export function validate<const S extends ToolSchema | CompiledSchema>(
  schema: S,
  value: unknown,
): ValidationResult<SchemaOutput<S>> {
  return compileSchema(schema).validate(value);
}

/** {@link validate} for schemas that may validate asynchronously (an async Standard Schema). */
export function validateAsync<const S extends ToolSchema | CompiledSchema>(
  schema: S,
  value: unknown,
): Promise<ValidationResult<SchemaOutput<S>>> {
  return compileSchema(schema).validateAsync(value);
}

/**
 * Return `value` (a Standard Schema's output) when it is valid, else throw {@link ValidationError}
 * carrying every issue.
 *
 * @example
 * const args = assertValid({ id: { type: 'string' } }, JSON.parse(raw)); // args: { id: string }
 */
export function assertValid<const S extends ToolSchema | CompiledSchema>(schema: S, value: unknown): SchemaOutput<S> {
  const result = compileSchema(schema).validate(value);
  if (!result.ok) throw new ValidationError(result.issues);
  return result.value;
}
