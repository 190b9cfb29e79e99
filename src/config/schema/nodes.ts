/**
 * The config schema's building blocks. One description per setting yields three things: the
 * validator that checks a parsed `hyphae.yaml`, the published JSON Schema (`hyphae.schema.json`),
 * and the parser that turns a checked value into typed settings (durations in ms, paths resolved,
 * snake_case mapped to the camelCase settings types) — so the three can never drift apart.
 *
 * A node's `check` reports issues as data and never throws; `parse` runs only on checked values.
 */
import { describeValue } from '../../boundary/issues.js';
import { codeList } from '../../core/code-list.js';
import { closest } from './did-you-mean.js';

/** A key or an index on the way to a value. */
export type ConfigPathSegment = string | number;

/** A problem found by a node: where (`path`), what, and whether it points at a key or a value. */
export interface NodeIssue {
  readonly path: readonly ConfigPathSegment[];
  readonly message: string;
  /** `key`: the offending mapping key (unknown keys); `value`: the value; `parent`: the mapping (missing keys). */
  readonly target: 'key' | 'value' | 'parent';
}

/** A JSON Schema object, as emitted. */
export type JsonSchema = { readonly [keyword: string]: unknown };

/** What parsing needs from outside the document. */
export interface ParseContext {
  /** Directory that relative paths are resolved against (the config file's directory). */
  readonly baseDir: string;
}

/** What every node has, whatever the type it checks. */
export interface AnyNode {
  /** A phrase for messages: `a string`, `one of \`a\`, \`b\``. */
  readonly expected: string;
  /** Whether the key holding this node may be absent. */
  readonly optional: boolean;
  readonly description: string | undefined;
  /** The JSON Schema of this node. */
  toJson(): JsonSchema;
  /** Append an issue for each problem of `value`; `path` is where `value` sits. */
  check(value: unknown, path: readonly ConfigPathSegment[], issues: NodeIssue[]): void;
  /** Turn a value that passed `check` into its typed form. */
  parse(value: unknown, ctx: ParseContext): unknown;
}

/** A node whose checked values parse to `T` (the phantom member makes `Node` invariant in `T`). */
export interface Node<T> extends AnyNode {
  /** Turn a value that passed `check` into its typed form. */
  parse(value: unknown, ctx: ParseContext): T;
  readonly __type?: (value: T) => T;
}

/** A node whose key may be absent. */
export interface OptionalNode<T> extends Node<T> {
  readonly optional: true;
}

/** The type a node parses to. */
export type Infer<N> = N extends { readonly __type?: (value: infer T) => unknown } ? T : never;

/** The keys of an object node and their nodes. */
export type Shape = Readonly<Record<string, AnyNode>>;
type RequiredKeys<S extends Shape> = { [K in keyof S]: S[K] extends { readonly optional: true } ? never : K }[keyof S];
type OptionalKeys<S extends Shape> = { [K in keyof S]: S[K] extends { readonly optional: true } ? K : never }[keyof S];
type Flatten<T> = { [K in keyof T]: T[K] } & {};

/** The object type of a shape: optional nodes become optional keys. */
export type ObjectOf<S extends Shape> = Flatten<
  { readonly [K in RequiredKeys<S>]: Infer<S[K]> } & { readonly [K in OptionalKeys<S>]?: Infer<S[K]> }
>;

/** Options every node takes. */
export interface Base {
  readonly description?: string;
}

/** How a value is named in messages. */
export function got(value: unknown): string {
  if (value === null) return '`null`';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return `\`${value}\``;
  if (typeof value === 'number' || typeof value === 'boolean') return `\`${String(value)}\``;
  return describeValue(value);
}

/** `Expected …, got …`. */
export function mismatch(expected: string, value: unknown): string {
  return `Expected ${expected}, got ${got(value)}`;
}

function withDescription(json: JsonSchema, description: string | undefined): JsonSchema {
  return description === undefined ? json : { description, ...json };
}

/** Build a frozen node. */
export function make<T>(
  expected: string,
  description: string | undefined,
  json: () => JsonSchema,
  check: AnyNode['check'],
  parse: (value: unknown, ctx: ParseContext) => T = (value) => value as T,
): Node<T> {
  return Object.freeze({
    expected,
    optional: false,
    description,
    toJson: () => withDescription(json(), description),
    check,
    parse,
  });
}

/** A node that takes a value whole or refuses it with one `Expected …, got …` issue. */
export function makeLeaf<T>(
  expected: string,
  description: string | undefined,
  json: () => JsonSchema,
  accepts: (value: unknown) => boolean,
): Node<T> {
  return make(expected, description, json, (value, path, issues) => {
    if (!accepts(value)) issues.push({ path, target: 'value', message: mismatch(expected, value) });
  });
}

/** A mapping (not a list, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A string, optionally matching a pattern (`patternText` names it in messages). */
export function string(
  options: Base & { readonly pattern?: string; readonly patternText?: string; readonly minLength?: number } = {},
): Node<string> {
  const { pattern, minLength = 1 } = options;
  const regex = pattern === undefined ? undefined : new RegExp(pattern, 'u');
  return makeLeaf(
    options.patternText ?? (minLength > 0 ? 'a non-empty string' : 'a string'),
    options.description,
    () => ({ type: 'string', ...(minLength > 0 ? { minLength } : {}), ...(pattern === undefined ? {} : { pattern }) }),
    (value) => typeof value === 'string' && value.length >= minLength && (regex === undefined || regex.test(value)),
  );
}

/** One of a fixed set of strings; a near miss gets a "did you mean" hint. */
export function oneOf<const V extends string>(
  values: readonly V[],
  options: Base & { readonly aliases?: readonly string[] } = {},
): Node<V> {
  const accepted = [...values, ...(options.aliases ?? [])];
  const expected = `one of ${codeList(values)}${options.aliases === undefined ? '' : ` (or an alias: ${codeList(options.aliases)})`}`;
  return make(
    expected,
    options.description,
    () => ({ type: 'string', enum: accepted }),
    (value, path, issues) => {
      if (typeof value === 'string' && accepted.includes(value)) return;
      const hint = typeof value === 'string' ? closest(value, accepted) : undefined;
      const message =
        hint === undefined
          ? mismatch(expected, value)
          : `Expected ${expected}, got ${got(value)} (did you mean \`${hint}\`?)`;
      issues.push({ path, target: 'value', message });
    },
  );
}

/** Exactly one string, such as `all`. */
export function literal<const V extends string>(value: V, options: Base = {}): Node<V> {
  return makeLeaf(
    `\`${value}\``,
    options.description,
    () => ({ const: value }),
    (actual) => actual === value,
  );
}

/** A number; `integer` refuses fractions; bounds are inclusive unless `exclusiveMinimum`. */
export function number(
  options: Base & {
    readonly integer?: boolean;
    readonly minimum?: number;
    readonly exclusiveMinimum?: number;
    readonly maximum?: number;
  } = {},
): Node<number> {
  const { integer = false, minimum, exclusiveMinimum, maximum } = options;
  const bounds = [
    minimum === undefined ? '' : ` of at least ${minimum}`,
    exclusiveMinimum === undefined ? '' : ` greater than ${exclusiveMinimum}`,
    maximum === undefined
      ? ''
      : `${minimum === undefined && exclusiveMinimum === undefined ? '' : ' and'} at most ${maximum}`,
  ].join('');
  return makeLeaf(
    `${integer ? 'an integer' : 'a number'}${bounds}`,
    options.description,
    () => ({
      type: integer ? 'integer' : 'number',
      ...(minimum === undefined ? {} : { minimum }),
      ...(exclusiveMinimum === undefined ? {} : { exclusiveMinimum }),
      ...(maximum === undefined ? {} : { maximum }),
    }),
    (value) =>
      typeof value === 'number' &&
      Number.isFinite(value) &&
      (!integer || Number.isInteger(value)) &&
      (minimum === undefined || value >= minimum) &&
      (exclusiveMinimum === undefined || value > exclusiveMinimum) &&
      (maximum === undefined || value <= maximum),
  );
}

/** `true` or `false`. */
export function boolean(options: Base = {}): Node<boolean> {
  return makeLeaf(
    '`true` or `false`',
    options.description,
    () => ({ type: 'boolean' }),
    (value) => typeof value === 'boolean',
  );
}

/** Any mapping, kept as it is (a JSON Schema or field spec inside the config). */
export function mapping(options: Base = {}): Node<Readonly<Record<string, unknown>>> {
  return makeLeaf('a mapping', options.description, () => ({ type: 'object' }), isPlainObject);
}

/** Mark a node's key as optional. */
export function optional<T>(node: Node<T>): OptionalNode<T> {
  return Object.freeze({ ...node, optional: true as const });
}

/** The same checks and JSON Schema, parsing to `fn` of the parsed value. */
export function map<T, U>(node: Node<T>, fn: (value: T, ctx: ParseContext) => U): Node<U> {
  return Object.freeze({
    expected: node.expected,
    optional: false,
    description: node.description,
    toJson: node.toJson,
    check: node.check,
    parse: (value: unknown, ctx: ParseContext) => fn(node.parse(value, ctx), ctx),
  });
}
