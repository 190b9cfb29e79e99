/**
 * The Standard Schema v1 interface (https://standardschema.dev), declared structurally so that zod 4,
 * valibot, arktype and others are accepted without a dependency, and the mapping of their issues
 * onto our {@link ValidationIssue} codes.
 */

import {
  describeValue,
  type IssueCode,
  isMissingMember,
  type PathSegment,
  type ValidationIssue,
  valueAt,
} from './issues.js';

/** A path segment as Standard Schema reports it. */
export interface StandardPathSegment {
  readonly key: PropertyKey;
}

/** One issue as Standard Schema reports it. Vendors add fields (`code`, `kind`, …). */
export interface StandardIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | StandardPathSegment> | undefined;
}

/** The result of a Standard Schema `validate`. */
export type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<StandardIssue> };

/** The `~standard` property of a Standard Schema v1 validator. */
export interface StandardProps<Input = unknown, Output = Input> {
  readonly version: 1;
  readonly vendor: string;
  readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>;
  readonly types?: { readonly input: Input; readonly output: Output } | undefined;
}

/** Any Standard Schema v1 validator (zod 4, valibot ≥ 1, arktype ≥ 2, …). */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardProps<Input, Output>;
}

/** The output type of a Standard Schema. */
export type StandardOutput<S> = S extends { readonly '~standard': { readonly types?: infer T } }
  ? NonNullable<T> extends { readonly output: infer O }
    ? O
    : unknown
  : unknown;

/** The input type of a Standard Schema. */
export type StandardInput<S> = S extends { readonly '~standard': { readonly types?: infer T } }
  ? NonNullable<T> extends { readonly input: infer I }
    ? I
    : unknown
  : unknown;

/**
 * True for a Standard Schema v1 validator: an object or function (arktype types are functions)
 * whose `~standard` has `version: 1` and a `validate` function.
 */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  try {
    if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return false;
    const props: unknown = (value as { '~standard'?: unknown })['~standard'];
    if (props === null || typeof props !== 'object') return false;
    const { version, validate } = props as { version?: unknown; validate?: unknown };
    return version === 1 && typeof validate === 'function';
  } catch {
    // A value that cannot be read (a getter or Proxy trap that throws) is not a usable schema.
    return false;
  }
}

function toSegments(path: StandardIssue['path']): PathSegment[] {
  if (path === undefined) return [];
  return path.map((segment) => {
    const key = typeof segment === 'object' && segment !== null ? segment.key : segment;
    return typeof key === 'number' ? key : String(key);
  });
}

/** Vendor fields we read to pick a code: zod 4 (`code`, `origin`, `format`, `keys`), valibot (`kind`, `type`). */
interface VendorIssue {
  readonly code?: unknown;
  readonly origin?: unknown;
  readonly format?: unknown;
  readonly keys?: unknown;
  readonly kind?: unknown;
  readonly type?: unknown;
}

function sizeCode(small: boolean, origin: unknown): IssueCode {
  if (origin === 'string') return small ? 'too_short' : 'too_long';
  if (origin === 'array' || origin === 'set') return small ? 'too_few_items' : 'too_many_items';
  return 'out_of_range';
}

function vendorCode(issue: VendorIssue): IssueCode {
  switch (issue.code) {
    case 'invalid_type':
      return 'type_mismatch';
    case 'invalid_format':
      return issue.format === 'regex' ? 'pattern_mismatch' : 'invalid_value';
    case 'too_small':
      return sizeCode(true, issue.origin);
    case 'too_big':
      return sizeCode(false, issue.origin);
    case 'invalid_value':
      return 'not_in_enum';
    default:
      break;
  }
  if (issue.kind === 'schema') return 'type_mismatch';
  if (issue.type === 'regex') return 'pattern_mismatch';
  if (issue.type === 'min_length') return 'too_short';
  if (issue.type === 'max_length') return 'too_long';
  return 'invalid_value';
}

/**
 * Map Standard Schema issues onto our issues. A member its parent does not have is always
 * `missing_required_field`; zod's `unrecognized_keys` becomes one `unexpected_field` per key.
 */
export function mapStandardIssues(root: unknown, issues: ReadonlyArray<StandardIssue>): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  for (const issue of issues) {
    const path = toSegments(issue.path);
    const vendor = issue as VendorIssue;
    if (vendor.code === 'unrecognized_keys' && Array.isArray(vendor.keys)) {
      for (const key of vendor.keys as unknown[]) {
        const name = String(key);
        const at = [...path, name];
        out.push({
          code: 'unexpected_field',
          path: at,
          message: `Unexpected field \`${name}\``,
          expected: 'no such field',
          actual: describeValue(valueAt(root, at)),
        });
      }
      continue;
    }
    const actual = valueAt(root, path);
    const missing = path.length > 0 && isMissingMember(root, path);
    const code: IssueCode = missing ? 'missing_required_field' : vendorCode(vendor);
    out.push({
      code,
      path,
      message: missing ? 'Required field is missing' : issue.message,
      expected: missing ? 'a value' : issue.message,
      actual: missing ? 'nothing' : describeValue(actual),
    });
  }
  return out;
}
