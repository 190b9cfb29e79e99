/**
 * Field specs: the short schema form of a tool's arguments, and the TypeScript types they infer.
 *
 * ```ts
 * const spec = { customer_id: { type: 'string', pattern: '^c\\d+$' }, limit: { type: 'integer', required: false } };
 * ```
 */

/** Options every field accepts. */
export interface FieldBase {
  /** Default `true`. Not allowed on array items (an item is never missing). */
  readonly required?: boolean;
  readonly description?: string;
}

/** A string field. `pattern` is an ECMAScript regular expression with the `u` flag, unanchored. */
export interface StringField extends FieldBase {
  readonly type: 'string';
  readonly pattern?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly enum?: readonly string[];
}

/** A number field; `integer` accepts only whole numbers. NaN and ±Infinity are never accepted. */
export interface NumericField extends FieldBase {
  readonly type: 'integer' | 'number';
  readonly minimum?: number;
  readonly maximum?: number;
  readonly enum?: readonly number[];
}

/** A boolean field. */
export interface BooleanField extends FieldBase {
  readonly type: 'boolean';
  readonly enum?: readonly boolean[];
}

/** An array field whose every item is described by `items`. */
export interface ArrayField extends FieldBase {
  readonly type: 'array';
  readonly items: FieldDef;
  readonly minItems?: number;
  readonly maxItems?: number;
}

/** A nested object; unknown members are refused like at the top level. */
export interface ObjectField extends FieldBase {
  readonly type: 'object';
  readonly properties: FieldSpec;
}

/** One field of a {@link FieldSpec}. */
export type FieldDef = StringField | NumericField | BooleanField | ArrayField | ObjectField;

/** The field types a spec may use. */
export type FieldType = FieldDef['type'];

/** A tool's arguments: field name → field definition. Members not listed are refused. */
export interface FieldSpec {
  readonly [name: string]: FieldDef;
}

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The TypeScript value type of one field. */
export type InferField<F> = F extends { readonly enum: readonly (infer E)[] }
  ? E
  : F extends { readonly type: 'string' }
    ? string
    : F extends { readonly type: 'integer' | 'number' }
      ? number
      : F extends { readonly type: 'boolean' }
        ? boolean
        : F extends { readonly type: 'array'; readonly items: infer I }
          ? InferField<I>[]
          : F extends { readonly type: 'object'; readonly properties: infer P }
            ? InferFieldSpec<P>
            : unknown;

type OptionalKeys<S> = { [K in keyof S]: S[K] extends { readonly required: false } ? K : never }[keyof S];
type RequiredKeys<S> = Exclude<keyof S, OptionalKeys<S>>;

/**
 * The TypeScript type of the arguments a {@link FieldSpec} accepts.
 *
 * @example
 * type Args = InferFieldSpec<{ id: { type: 'string' }; n: { type: 'integer'; required: false } }>;
 * // { id: string; n?: number }
 */
export type InferFieldSpec<S> = Simplify<
  { -readonly [K in RequiredKeys<S>]: InferField<S[K]> } & { -readonly [K in OptionalKeys<S>]?: InferField<S[K]> }
>;
