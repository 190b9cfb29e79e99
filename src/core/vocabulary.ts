/**
 * Vocabularies: closed sets of names, each set a frozen object whose every key has its own name as
 * its value, and the union of the names as the type of one of them.
 */

/** The object of `names`: each name a key whose value is the name itself. */
export type Vocabulary<Names extends readonly string[]> = { readonly [Name in Names[number]]: Name };

/** One of the values of `T`: for a vocabulary, one of its names. */
export type ValueOf<T> = T[keyof T];

/**
 * The frozen vocabulary of `names`, keys in their order.
 *
 * @example
 * const COLOURS = ['red', 'green'] as const;
 * const Colour: Vocabulary<typeof COLOURS> = vocabulary(COLOURS); // { red: 'red', green: 'green' }
 * type Colour = ValueOf<typeof Colour>; // 'red' | 'green'
 */
export function vocabulary<const Names extends readonly string[]>(names: Names): Vocabulary<Names> {
  return Object.freeze(Object.fromEntries(names.map((name) => [name, name]))) as Vocabulary<Names>;
}

/** True when `value` is one of the names of `terms`. */
export function isTermOf<T extends string>(terms: Readonly<Record<string, T>>, value: unknown): value is T {
  return typeof value === 'string' && Object.hasOwn(terms, value) && terms[value] === value;
}
