/**
 * Documents and patches for the property tests: keys and pointers drawn from a small alphabet so
 * that patches often hit what the document holds, including the names that pollute prototypes.
 */
import fc from 'fast-check';
import { formatJsonPointer, getByPointer, type JsonValue } from '../../../src/harness/json-patch/index.js';

/** Member names: ordinary, numeric-looking, escaped, empty, and the prototype-polluting ones. */
export const KEYS = ['a', 'b', '0', '1', '01', '-', '', '~', '/', '__proto__', 'constructor', 'prototype', 'toString'];

const key = fc.constantFrom(...KEYS);

/** A JSON scalar, with lone surrogates and multi-byte text in strings. */
const scalar = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer({ min: -1_000, max: 1_000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ unit: fc.nat(0xffff).map((code) => String.fromCharCode(code)), maxLength: 6 }),
  fc.string({ unit: 'binary', maxLength: 6 }),
);

/** Plain objects built with `defineProperty`, so a `__proto__` key is an own member as JSON.parse makes it. */
function objectOf(entries: readonly (readonly [string, unknown])[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of entries) {
    Object.defineProperty(out, name, { value, writable: true, enumerable: true, configurable: true });
  }
  return out;
}

/** A JSON document over {@link KEYS}. */
export const jsonDocument: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.uniqueArray(fc.tuple(key, tie('value')), { maxLength: 4, selector: ([name]) => name }).map(objectOf),
  ),
})).value;

/** A pointer: mostly tokens over {@link KEYS} and small indexes, sometimes a malformed string. */
export const pointer: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.array(fc.oneof(key, fc.constantFrom('2', '3', '00', '1e0')), { maxLength: 3 }).map(formatJsonPointer),
  },
  { weight: 1, arbitrary: fc.constantFrom('a', '/~2', '/a~', '~1') },
  { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
);

/** A well-formed operation (it may still fail against the document). */
export const operation: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.record({ op: fc.constantFrom('add', 'replace', 'test'), path: pointer, value: jsonDocument }),
  fc.record({ op: fc.constant('remove'), path: pointer }),
  fc.record({ op: fc.constantFrom('move', 'copy'), from: pointer, path: pointer }),
);

/** Anything JavaScript can hold, JSON or not: dates, maps, bigints, sparse arrays, null prototypes… */
export const anything: fc.Arbitrary<unknown> = fc.anything({
  maxDepth: 2,
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withNullPrototype: true,
  withObjectString: true,
  withSet: true,
  withSparseArray: true,
  withTypedArray: true,
});

/** A patch that is mostly operations, with the odd malformed one or a non-JSON value. */
export const messyPatch: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.array(operation, { maxLength: 6 }) },
  {
    weight: 3,
    arbitrary: fc.array(
      fc.oneof(
        { weight: 4, arbitrary: operation },
        { weight: 1, arbitrary: anything },
        { weight: 1, arbitrary: fc.record({ op: fc.constantFrom('add', 'test'), path: pointer, value: anything }) },
      ),
      { maxLength: 6 },
    ),
  },
  { weight: 1, arbitrary: anything },
);

/** The pointer of every value in `document`, root first. */
function locationsOf(document: unknown, prefix: readonly string[] = [], out: string[] = []): string[] {
  out.push(formatJsonPointer(prefix));
  if (typeof document === 'object' && document !== null) {
    const entries = Array.isArray(document)
      ? document.map((value, i) => [String(i), value] as const)
      : Object.entries(document);
    for (const [name, value] of entries) locationsOf(value, [...prefix, name], out);
  }
  return out;
}

/**
 * A document and a patch aimed at it: most pointers name a value the document holds, or a new
 * member or element beside one, so that many patches apply and the rest fail for varied reasons.
 */
export const documentAndPatch: fc.Arbitrary<[unknown, Record<string, unknown>[]]> = jsonDocument.chain((document) => {
  const existing = fc.constantFrom(...locationsOf(document));
  const aimed = fc.oneof(
    { weight: 6, arbitrary: existing },
    { weight: 3, arbitrary: fc.tuple(existing, key).map(([at, name]) => `${at}${formatJsonPointer([name])}`) },
    { weight: 1, arbitrary: pointer },
  );
  const aimedOperation = fc.oneof(
    fc.record({ op: fc.constantFrom('add', 'replace'), path: aimed, value: jsonDocument }),
    fc.record({ op: fc.constant('test'), path: aimed, value: jsonDocument }),
    // A test that holds on the input document (later operations may have changed it).
    existing.map((path) => ({ op: 'test', path, value: getByPointer(document as JsonValue, path) })),
    fc.record({ op: fc.constant('remove'), path: aimed }),
    fc.record({ op: fc.constantFrom('move', 'copy'), from: aimed, path: aimed }),
  );
  return fc.tuple(fc.constant(document), fc.array(aimedOperation, { maxLength: 6 }));
});
