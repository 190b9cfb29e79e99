/**
 * Composite nodes: lists, records, objects (with exclusive key groups), unions and unions
 * discriminated by one key.
 */
import { codeList } from '../../core/code-list.js';
import { closest } from './did-you-mean.js';
import {
  type AnyNode,
  type Base,
  type ConfigPathSegment,
  type Infer,
  isPlainObject,
  type JsonSchema,
  literal,
  make,
  mismatch,
  type Node,
  type NodeIssue,
  type ObjectOf,
  optional,
  type ParseContext,
  type Shape,
} from './nodes.js';

/** `a name (…)` → `names (…)`, `a non-empty string` → `non-empty strings`; anything else as it is. */
function plural(expected: string): string {
  const match = /^an? ((?:non-empty )?[a-z]+)(.*)$/su.exec(expected);
  return match === null ? expected : `${match[1]}s${match[2]}`;
}

/** A list of `item`. */
export function list<T>(item: Node<T>, options: Base & { readonly minItems?: number } = {}): Node<readonly T[]> {
  const { minItems = 0 } = options;
  const expected = `a list of ${plural(item.expected)}${minItems > 0 ? ` (at least ${minItems})` : ''}`;
  return make(
    expected,
    options.description,
    () => ({ type: 'array', items: item.toJson(), ...(minItems > 0 ? { minItems } : {}) }),
    (value, path, issues) => {
      if (!Array.isArray(value) || value.length < minItems) {
        issues.push({ path, target: 'value', message: mismatch(expected, value) });
        return;
      }
      value.forEach((entry, index) => {
        item.check(entry, [...path, index], issues);
      });
    },
    (value, ctx) => Object.freeze((value as unknown[]).map((entry) => item.parse(entry, ctx))),
  );
}

/**
 * A node over mappings: anything else is one `Expected …, got …` issue; `check` and `parse` see
 * only mappings. Its JSON Schema is of `type: object`, with the keywords of `json`.
 */
function makeMapping<T>(
  expected: string,
  description: string | undefined,
  json: () => JsonSchema,
  check: (value: Record<string, unknown>, path: readonly ConfigPathSegment[], issues: NodeIssue[]) => void,
  parse: (value: Record<string, unknown>, ctx: ParseContext) => T,
): Node<T> {
  return make(
    expected,
    description,
    () => ({ type: 'object', ...json() }),
    (value, path, issues) => {
      if (isPlainObject(value)) check(value, path, issues);
      else issues.push({ path, target: 'value', message: mismatch(expected, value) });
    },
    (value, ctx) => parse(value as Record<string, unknown>, ctx),
  );
}

/** A mapping from names (matching `keyPattern`) to `value`. */
export function record<T>(
  value: Node<T>,
  options: Base & { readonly keyPattern?: string; readonly keyText?: string } = {},
): Node<Readonly<Record<string, T>>> {
  const keyRegex = options.keyPattern === undefined ? undefined : new RegExp(options.keyPattern, 'u');
  return makeMapping(
    'a mapping',
    options.description,
    () => ({
      additionalProperties: value.toJson(),
      ...(options.keyPattern === undefined ? {} : { propertyNames: { pattern: options.keyPattern } }),
    }),
    (actual, path, issues) => {
      for (const [key, entry] of Object.entries(actual)) {
        if (keyRegex !== undefined && !keyRegex.test(key)) {
          issues.push({
            path: [...path, key],
            target: 'key',
            message: `Name \`${key}\` is not ${options.keyText ?? `a name matching \`${options.keyPattern}\``}`,
          });
          continue;
        }
        value.check(entry, [...path, key], issues);
      }
    },
    (actual, ctx) =>
      Object.freeze(Object.fromEntries(Object.entries(actual).map(([key, entry]) => [key, value.parse(entry, ctx)]))),
  );
}

/** Options of {@link object}. */
export interface ObjectOptions extends Base {
  /** Groups of keys of which exactly one must be given (`[['url', 'url_env']]`). */
  readonly exactlyOne?: readonly (readonly string[])[];
  /** The message for an unknown key, when a better one than "did you mean" is known. */
  readonly unknownKey?: (key: string) => string | undefined;
}

function exclusiveJson(groups: readonly (readonly string[])[]): Record<string, unknown> {
  const clauses = groups.map((group) => ({ oneOf: group.map((key) => ({ required: [key] })) }));
  if (clauses.length === 0) return {};
  return clauses.length === 1 ? (clauses[0] as Record<string, unknown>) : { allOf: clauses };
}

function checkExclusive(
  value: Record<string, unknown>,
  groups: readonly (readonly string[])[],
  path: readonly ConfigPathSegment[],
  issues: NodeIssue[],
): void {
  for (const group of groups) {
    const present = group.filter((key) => Object.hasOwn(value, key));
    if (present.length === 1) continue;
    const [first, second] = present;
    if (first === undefined || second === undefined) {
      issues.push({ path, target: 'value', message: `Give one of ${codeList(group)}` });
    } else {
      issues.push({
        path: [...path, second],
        target: 'key',
        message: `Give only one of ${codeList(group)} (both \`${first}\` and \`${second}\` are set)`,
      });
    }
  }
}

/** A mapping with known keys; an unknown key is an issue with a "did you mean" hint. */
export function object<const S extends Shape>(shape: S, options: ObjectOptions = {}): Node<ObjectOf<S>> {
  const keys = Object.keys(shape);
  const required = keys.filter((key) => shape[key]?.optional !== true);
  const groups = options.exactlyOne ?? [];
  return makeMapping(
    'a mapping',
    options.description,
    () => ({
      properties: Object.fromEntries(keys.map((key) => [key, (shape[key] as AnyNode).toJson()])),
      ...(required.length > 0 ? { required } : {}),
      additionalProperties: false,
      ...exclusiveJson(groups),
    }),
    (value, path, issues) => {
      for (const key of required) {
        if (!Object.hasOwn(value, key)) {
          issues.push({
            path: [...path, key],
            target: 'parent',
            message: `Missing \`${key}\` (expected ${(shape[key] as AnyNode).expected})`,
          });
        }
      }
      for (const [key, entry] of Object.entries(value)) {
        const node = Object.hasOwn(shape, key) ? shape[key] : undefined;
        if (node === undefined) {
          const hint = closest(key, keys);
          const custom = options.unknownKey?.(key);
          issues.push({
            path: [...path, key],
            target: 'key',
            message:
              hint !== undefined
                ? `Unknown key \`${key}\` (did you mean \`${hint}\`?)`
                : (custom ?? `Unknown key \`${key}\` (expected one of ${codeList(keys)})`),
          });
          continue;
        }
        node.check(entry, [...path, key], issues);
      }
      checkExclusive(value, groups, path, issues);
    },
    (value, ctx) => {
      const out: Record<string, unknown> = {};
      for (const key of keys) {
        if (Object.hasOwn(value, key)) out[key] = (shape[key] as AnyNode).parse(value[key], ctx);
      }
      return Object.freeze(out) as ObjectOf<S>;
    },
  );
}

/** Options of {@link discriminated}. */
export interface DiscriminatedOptions<K extends string> extends Base {
  /** The variant of a mapping without the tag key (the tag is then optional). */
  readonly defaultTag?: K;
  /** Per variant, groups of keys of which exactly one must be given. */
  readonly exactlyOne?: Partial<Record<K, readonly (readonly string[])[]>>;
}

/** The parsed type of a {@link discriminated} node: one object type per variant. */
export type Discriminated<Tag extends string, C extends Shape, V extends Record<string, Shape>> = {
  [K in keyof V & string]: ObjectOf<C & V[K] & { readonly [T in Tag]: Node<K> }>;
}[keyof V & string];

/**
 * A mapping whose `tag` key chooses its shape: `{ storage: sqlite, path: … }`. Each variant is
 * the common keys plus its own; a key that belongs to another variant is named as such.
 */
export function discriminated<const Tag extends string, const C extends Shape, const V extends Record<string, Shape>>(
  tag: Tag,
  common: C,
  variants: V,
  options: DiscriminatedOptions<keyof V & string> = {},
): Node<Discriminated<Tag, C, V>> {
  const names = Object.keys(variants);
  const owners = new Map<string, string[]>();
  for (const [name, shape] of Object.entries(variants)) {
    for (const key of Object.keys(shape)) owners.set(key, [...(owners.get(key) ?? []), name]);
  }
  const nodes = new Map(
    Object.entries(variants).map(([name, shape]) => {
      const unknownKey = (key: string): string | undefined => {
        const of = owners.get(key);
        return of === undefined
          ? undefined
          : `\`${key}\` does not apply to ${tag} \`${name}\` (it is a setting of ${codeList(of)})`;
      };
      const tagNode = name === options.defaultTag ? optional(literal(name)) : literal(name);
      const full = { ...common, [tag]: tagNode, ...shape } as Shape;
      const exactlyOne = options.exactlyOne?.[name];
      return [name, object(full, exactlyOne === undefined ? { unknownKey } : { unknownKey, exactlyOne })] as const;
    }),
  );
  return makeMapping<Discriminated<Tag, C, V>>(
    `a mapping with \`${tag}\`: ${codeList(names)}`,
    options.description,
    () => ({
      ...(options.defaultTag === undefined ? { required: [tag] } : {}),
      properties: { [tag]: { enum: names } },
      oneOf: [...nodes.values()].map((node) => node.toJson()),
    }),
    (value, path, issues) => {
      const chosen = value[tag] ?? options.defaultTag;
      const node = typeof chosen === 'string' ? nodes.get(chosen) : undefined;
      if (node !== undefined) {
        node.check(value, path, issues);
        return;
      }
      if (chosen === undefined) {
        issues.push({
          path: [...path, tag],
          target: 'parent',
          message: `Missing \`${tag}\` (expected one of ${codeList(names)})`,
        });
        return;
      }
      const hint = typeof chosen === 'string' ? closest(chosen, names) : undefined;
      const suffix = hint === undefined ? '' : ` (did you mean \`${hint}\`?)`;
      issues.push({
        path: [...path, tag],
        target: 'value',
        message: `${mismatch(`one of ${codeList(names)}`, chosen)}${suffix}`,
      });
    },
    (value, ctx) => {
      const chosen = (value[tag] ?? options.defaultTag) as string;
      // The default variant parses with its tag filled in, so every parsed value carries one.
      const tagged = { ...value, [tag]: chosen };
      return (nodes.get(chosen) as AnyNode).parse(tagged, ctx) as Discriminated<Tag, C, V>;
    },
  );
}

function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  return typeof value;
}

function acceptsKind(node: AnyNode, kind: string): boolean {
  const json = node.toJson();
  const type = json.type;
  if (type === 'array' || type === 'object') return type === kind;
  if (type === 'integer') return kind === 'number';
  if (typeof type === 'string') return type === kind;
  if (typeof json.const === 'string') return kind === 'string';
  return false;
}

/**
 * One of several shapes. When the value has the shape (string, list, mapping) of exactly one
 * alternative, that alternative's issues are reported; otherwise one "expected A or B" issue.
 */
export function union<const N extends readonly AnyNode[]>(
  alternatives: N,
  options: Base & { readonly expected?: string } = {},
): Node<Infer<N[number]>> {
  const expected = options.expected ?? alternatives.map((node) => node.expected).join(' or ');
  return make(
    expected,
    options.description,
    () => ({ anyOf: alternatives.map((node) => node.toJson()) }),
    (value, path, issues) => {
      const attempts = alternatives.map((node) => {
        const found: NodeIssue[] = [];
        node.check(value, path, found);
        return { node, found };
      });
      if (attempts.some((attempt) => attempt.found.length === 0)) return;
      const kind = kindOf(value);
      const shaped = attempts.filter((attempt) => acceptsKind(attempt.node, kind));
      const [only] = shaped;
      if (shaped.length === 1 && only !== undefined && (kind === 'array' || kind === 'object')) {
        issues.push(...only.found);
        return;
      }
      issues.push({ path, target: 'value', message: mismatch(expected, value) });
    },
    (value, ctx) => {
      const issues: NodeIssue[] = [];
      const match = alternatives.find((node) => {
        issues.length = 0;
        node.check(value, [], issues);
        return issues.length === 0;
      }) as Node<Infer<N[number]>> | undefined;
      if (match === undefined) throw new TypeError('union.parse called on a value that failed its check');
      return match.parse(value, ctx);
    },
  );
}
