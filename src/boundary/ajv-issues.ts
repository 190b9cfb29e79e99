/**
 * Ajv errors → {@link ValidationIssue}s with our codes and short, model-readable messages.
 */
import type { ErrorObject } from 'ajv';
import { schemaAt } from './ajv-compile.js';
import type { JsonSchemaObject } from './field-spec.js';
import {
  article,
  describeValue,
  fromJsonPointer,
  type IssueCode,
  type PathSegment,
  type ValidationIssue,
  valueAt,
} from './issues.js';

const MAX_LISTED = 12;

function listValues(values: readonly unknown[]): string {
  const shown = values.slice(0, MAX_LISTED).map((value) => `\`${JSON.stringify(value)}\``);
  return values.length > MAX_LISTED ? `${shown.join(', ')}, …` : shown.join(', ');
}

/** Turn an Ajv instance path into segments, numbers where the container is an array. */
function toPath(root: unknown, instancePath: string): PathSegment[] {
  const out: PathSegment[] = [];
  let current: unknown = root;
  for (const segment of fromJsonPointer(instancePath)) {
    const key: PathSegment = Array.isArray(current) ? Number(segment) : segment;
    out.push(key);
    current =
      current !== null && typeof current === 'object' ? (current as Record<PathSegment, unknown>)[key] : undefined;
  }
  return out;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function issue(
  code: IssueCode,
  path: PathSegment[],
  expected: string,
  actual: string,
  message: string,
): ValidationIssue {
  return { code, path, expected, actual, message };
}

function missing(error: ErrorObject, schema: JsonSchemaObject, path: PathSegment[]): ValidationIssue {
  const name = String(error.params.missingProperty);
  const parentPath = error.schemaPath.replace(/\/required$/, '');
  const field = schemaAt(schema, `${parentPath}/properties/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`);
  const type = (field as { type?: unknown } | undefined)?.type;
  const expected = typeof type === 'string' ? `${article(type)} ${type}` : 'a value';
  return issue('missing_required_field', [...path, name], expected, 'nothing', `Required field \`${name}\` is missing`);
}

function unexpected(error: ErrorObject, schema: JsonSchemaObject, path: PathSegment[], root: unknown): ValidationIssue {
  const name = String(error.params.additionalProperty);
  const at = [...path, name];
  const parent = schemaAt(schema, error.schemaPath.replace(/\/additionalProperties$/, ''));
  const properties = (parent as { properties?: unknown } | undefined)?.properties;
  const known = properties !== null && typeof properties === 'object' ? Object.keys(properties) : [];
  const listed = known.map((k) => `\`${k}\``).join(', ');
  const expected = known.length === 0 ? 'no fields' : `one of ${listed}`;
  const actual = describeValue(valueAt(root, at));
  const allowed = known.length === 0 ? 'no fields are allowed here' : `allowed: ${listed}`;
  return issue('unexpected_field', at, expected, actual, `Unexpected field \`${name}\` (${allowed})`);
}

/** Map one Ajv error onto an issue. */
function mapError(error: ErrorObject, schema: JsonSchemaObject, root: unknown): ValidationIssue {
  const path = toPath(root, error.instancePath);
  const value = valueAt(root, path);
  const actual = describeValue(value);
  const { params } = error;
  switch (error.keyword) {
    case 'required':
      return missing(error, schema, path);
    case 'additionalProperties':
      return unexpected(error, schema, path, root);
    case 'type': {
      const type = Array.isArray(params.type) ? params.type.join(' or ') : String(params.type);
      return issue('type_mismatch', path, type, actual, `Expected ${type}, got ${actual}`);
    }
    case 'pattern': {
      const expected = `a string matching \`${String(params.pattern)}\``;
      return issue('pattern_mismatch', path, expected, actual, `Expected ${expected}, got ${actual}`);
    }
    case 'minLength':
    case 'maxLength': {
      const code = error.keyword === 'minLength' ? 'too_short' : 'too_long';
      const expected = `${error.keyword === 'minLength' ? 'at least' : 'at most'} ${plural(Number(params.limit), 'character')}`;
      const got = typeof value === 'string' ? plural([...value].length, 'character') : actual;
      return issue(code, path, expected, got, `Expected ${expected}, got ${got}`);
    }
    case 'minItems':
    case 'maxItems': {
      const code = error.keyword === 'minItems' ? 'too_few_items' : 'too_many_items';
      const expected = `${error.keyword === 'minItems' ? 'at least' : 'at most'} ${plural(Number(params.limit), 'item')}`;
      return issue(code, path, expected, actual, `Expected ${expected}, got ${actual}`);
    }
    case 'enum':
    case 'const': {
      const values: unknown[] = error.keyword === 'enum' ? (params.allowedValues as unknown[]) : [params.allowedValue];
      const expected = values.length === 1 ? listValues(values) : `one of ${listValues(values)}`;
      return issue('not_in_enum', path, expected, actual, `Expected ${expected}, got ${actual}`);
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum': {
      const expected = `a number ${String(params.comparison)} ${String(params.limit)}`;
      return issue('out_of_range', path, expected, actual, `Expected ${expected}, got ${actual}`);
    }
    default: {
      const expected = `a value that ${error.message ?? `passes \`${error.keyword}\``}`;
      return issue('invalid_value', path, expected, actual, `Value ${error.message ?? 'is invalid'} (got ${actual})`);
    }
  }
}

/** Map Ajv's errors for `root` onto issues, in Ajv's order. */
export function mapAjvErrors(
  errors: readonly ErrorObject[],
  schema: JsonSchemaObject,
  root: unknown,
): ValidationIssue[] {
  return errors.map((error) => mapError(error, schema, root));
}
