/**
 * Field spec → JSON Schema. The spec is checked strictly first, so a typo or a misplaced option
 * fails when the tool is defined instead of silently loosening validation.
 */

import { unreadableArgument } from '../invalid-argument.js';
import { SchemaDefinitionError } from './errors.js';
import type { FieldSpec } from './field-spec-types.js';
import { article, describeValue, toJsonPointer } from './issues.js';

/** A JSON Schema document, as a plain object. */
export interface JsonSchemaObject {
  readonly [keyword: string]: unknown;
}

const FIELD_TYPES = ['string', 'integer', 'number', 'boolean', 'array', 'object'] as const;

/** Options each type accepts besides `type`, `required` and `description`. */
const OPTIONS: Readonly<Record<(typeof FIELD_TYPES)[number], readonly string[]>> = {
  string: ['pattern', 'minLength', 'maxLength', 'enum'],
  integer: ['minimum', 'maximum', 'enum'],
  number: ['minimum', 'maximum', 'enum'],
  boolean: ['enum'],
  array: ['items', 'minItems', 'maxItems'],
  object: ['properties'],
};
const COMMON = ['type', 'required', 'description'];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function isFieldType(value: unknown): value is (typeof FIELD_TYPES)[number] {
  return typeof value === 'string' && (FIELD_TYPES as readonly string[]).includes(value);
}

function fail(path: readonly string[], problem: string): never {
  throw new SchemaDefinitionError(toJsonPointer(path), problem);
}

function checkCount(def: Record<string, unknown>, path: string[], min: string, max: string): void {
  for (const key of [min, max]) {
    const value = def[key];
    if (value !== undefined && !(Number.isSafeInteger(value) && (value as number) >= 0)) {
      fail(path, `\`${key}\` must be a non-negative integer, got ${describeValue(value)}`);
    }
  }
  const low = def[min];
  const high = def[max];
  if (typeof low === 'number' && typeof high === 'number' && low > high) {
    fail(path, `\`${min}\` (${low}) is greater than \`${max}\` (${high})`);
  }
}

function checkRange(def: Record<string, unknown>, path: string[]): void {
  for (const key of ['minimum', 'maximum']) {
    const value = def[key];
    if (value !== undefined && !Number.isFinite(value)) {
      fail(path, `\`${key}\` must be a finite number, got ${describeValue(value)}`);
    }
  }
  if (typeof def.minimum === 'number' && typeof def.maximum === 'number' && def.minimum > def.maximum) {
    fail(path, `\`minimum\` (${def.minimum}) is greater than \`maximum\` (${def.maximum})`);
  }
}

function memberFits(type: string, member: unknown): boolean {
  if (type === 'integer') return Number.isInteger(member);
  if (type === 'number') return Number.isFinite(member);
  return typeof member === type;
}

function checkEnum(type: string, values: unknown, path: string[]): void {
  if (!Array.isArray(values) || values.length === 0) fail(path, '`enum` must be a non-empty array');
  for (const member of values as unknown[]) {
    if (!memberFits(type, member))
      fail(path, `\`enum\` member ${describeValue(member)} is not ${article(type)} \`${type}\``);
  }
  if (new Set(values as unknown[]).size !== (values as unknown[]).length) fail(path, '`enum` has duplicate members');
}

function checkPattern(pattern: unknown, path: string[]): void {
  if (typeof pattern !== 'string') fail(path, `\`pattern\` must be a string, got ${describeValue(pattern)}`);
  try {
    new RegExp(pattern, 'u');
  } catch (error) {
    fail(path, `\`pattern\` \`${pattern}\` is not a valid regular expression: ${(error as Error).message}`);
  }
}

function checkUnknownOptions(def: Record<string, unknown>, type: string, path: string[]): void {
  const allowed = OPTIONS[type as keyof typeof OPTIONS];
  for (const key of Object.keys(def)) {
    if (COMMON.includes(key) || allowed.includes(key)) continue;
    const owners = FIELD_TYPES.filter((t) => OPTIONS[t].includes(key));
    if (owners.length > 0) {
      const list = owners.map((t) => `\`${t}\``).join(', ');
      fail(path, `\`${key}\` is only allowed on ${list} fields, not on this \`${type}\` field`);
    }
    // mycelium-runtime's field specs spell options in snake_case (`min_length`).
    const camel = key.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
    const hint = camel !== key && allowed.includes(camel) ? ` (did you mean \`${camel}\`?)` : '';
    fail(path, `unknown option \`${key}\` on this \`${type}\` field${hint}`);
  }
}

function checkField(def: unknown, path: string[], isItem: boolean): void {
  if (!isPlainObject(def)) fail(path, `a field definition must be an object, got ${describeValue(def)}`);
  const { type } = def;
  if (type === undefined) fail(path, 'missing `type`');
  if (!isFieldType(type)) {
    const known = FIELD_TYPES.map((t) => `\`${t}\``).join(', ');
    fail(path, `unknown type ${typeof type === 'string' ? `\`${type}\`` : describeValue(type)} (known: ${known})`);
  }
  checkUnknownOptions(def, type, path);
  if (def.required !== undefined && typeof def.required !== 'boolean') fail(path, '`required` must be a boolean');
  if (isItem && def.required !== undefined) fail(path, '`required` has no meaning on array items');
  if (def.description !== undefined && typeof def.description !== 'string')
    fail(path, '`description` must be a string');
  if (def.enum !== undefined) checkEnum(type, def.enum, path);
  if (type === 'string') {
    if (def.pattern !== undefined) checkPattern(def.pattern, path);
    checkCount(def, path, 'minLength', 'maxLength');
  } else if (type === 'integer' || type === 'number') {
    checkRange(def, path);
  } else if (type === 'array') {
    if (def.items === undefined) fail(path, 'an `array` field needs `items`');
    checkCount(def, path, 'minItems', 'maxItems');
    checkField(def.items, [...path, 'items'], true);
  } else if (type === 'object') {
    if (def.properties === undefined) fail(path, 'an `object` field needs `properties`');
    checkSpec(def.properties, path);
  }
}

function checkSpec(spec: unknown, path: string[]): void {
  if (!isPlainObject(spec))
    fail(path, `a field spec must be an object of field definitions, got ${describeValue(spec)}`);
  for (const name of Object.keys(spec)) checkField(spec[name], [...path, name], false);
}

function fieldToJsonSchema(def: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(def)) {
    if (key === 'required') continue;
    if (key === 'items') out.items = fieldToJsonSchema(value as Record<string, unknown>);
    else if (key === 'properties') Object.assign(out, specToJsonSchema(value as Record<string, unknown>));
    else out[key] = Array.isArray(value) ? [...value] : value;
  }
  return out;
}

function specToJsonSchema(spec: Record<string, unknown>): Record<string, unknown> {
  const names = Object.keys(spec);
  const required = names.filter((name) => (spec[name] as { required?: boolean }).required !== false);
  return {
    type: 'object',
    // Object.fromEntries defines own members, so a field named `__proto__` stays a field.
    properties: Object.fromEntries(
      names.map((name) => [name, fieldToJsonSchema(spec[name] as Record<string, unknown>)]),
    ),
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}

/**
 * Check a field spec strictly (a bad spec throws {@link SchemaDefinitionError} naming the field and
 * the problem) and compile it to a JSON Schema object with `additionalProperties: false` at every
 * level.
 *
 * @example
 * fieldSpecToJsonSchema({ customer_id: { type: 'string', pattern: '^c\\d+$' } });
 * // { type: 'object', properties: { customer_id: { type: 'string', pattern: '^c\\d+$' } },
 * //   required: ['customer_id'], additionalProperties: false }
 */
export function fieldSpecToJsonSchema(spec: FieldSpec): JsonSchemaObject {
  try {
    checkSpec(spec, []);
    return specToJsonSchema(spec as Record<string, unknown>);
  } catch (cause) {
    return unreadableArgument('fieldSpecToJsonSchema', 'spec', cause);
  }
}
