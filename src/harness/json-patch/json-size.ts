/**
 * One walk that both checks a value is plain JSON and counts the bytes of its canonical (RFC 8785)
 * UTF-8 form, without building the string.
 *
 * Canonical JSON only reorders object members, so its length is the sum of the lengths of the
 * parts: no sort is needed to count it. Strings are counted as `JSON.stringify` escapes them
 * (RFC 8785 uses that escaping), numbers by their ECMAScript shortest form.
 */

/** Why a walk stopped: a value JSON cannot hold, the byte cap, or the nesting cap. */
export type WalkStop = 'not_json' | 'too_large' | 'too_deep';

/** Thrown by {@link measureJson}; `path` is the location of the problem, root first. */
export class WalkFailure {
  readonly stop: WalkStop;
  readonly detail: string;
  /** Filled while the walk unwinds, innermost token first; read it through {@link failurePath}. */
  readonly reversedPath: (string | number)[] = [];

  constructor(stop: WalkStop, detail: string) {
    this.stop = stop;
    this.detail = detail;
  }
}

/** The path of a failure, root first. */
export function failurePath(failure: WalkFailure): (string | number)[] {
  return [...failure.reversedPath].reverse();
}

interface Meter {
  bytes: number;
  /** Depth of the deepest container met (the root is at depth 0); -1 while none. */
  deepest: number;
  readonly cap: number;
  readonly maxDepth: number;
}

const POWERS_OF_TEN = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];

function numberBytes(value: number): number {
  // Integers below 1e15 print as plain digits; counting them avoids a string per number.
  if (Number.isInteger(value) && value > -1e15 && value < 1e15) {
    const sign = value < 0 ? 1 : 0;
    const magnitude = value < 0 ? -value : value;
    let digits = 1;
    while (digits < 15 && magnitude >= (POWERS_OF_TEN[digits] as number)) digits++;
    return sign + digits;
  }
  return String(value).length;
}

/** Bytes of `text` as a canonical JSON string literal, quotes included. */
export function stringBytes(text: string): number {
  const length = text.length;
  // Most text is printable ASCII needing no escape: one byte per unit. Leave that loop at the first other unit.
  let i = 0;
  for (; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code > 0x7e || code === 0x22 || code === 0x5c) break;
  }
  return i === length ? length + 2 : length + 2 + extraBytes(text, i);
}

/** Bytes beyond one per UTF-16 unit, from `start` on: escapes and multi-byte UTF-8. */
function extraBytes(text: string, start: number): number {
  let extra = 0;
  for (let i = start; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) {
      if (code >= 0x20) {
        if (code === 0x22 || code === 0x5c) extra += 1; // \" and \\
      } else if (code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d) {
        extra += 1; // \b \t \n \f \r
      } else {
        extra += 5; // \u00XX
      }
    } else if (code < 0x800) {
      extra += 1;
    } else if (code >= 0xd800 && code <= 0xdfff) {
      const next = text.charCodeAt(i + 1);
      if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        extra += 2; // a pair: two UTF-16 units, four UTF-8 bytes
        i++;
      } else {
        extra += 5; // a lone surrogate is escaped as \uDXXX
      }
    } else {
      extra += 2;
    }
  }
  return extra;
}

function typeName(value: unknown): string {
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name !== '' ? name : 'unknown';
}

function walk(value: unknown, depth: number, meter: Meter): void {
  switch (typeof value) {
    case 'string':
      meter.bytes += stringBytes(value);
      break;
    case 'number':
      if (!Number.isFinite(value)) throw new WalkFailure('not_json', `\`${value}\` is not a finite number`);
      meter.bytes += numberBytes(value);
      break;
    case 'boolean':
      meter.bytes += value ? 4 : 5;
      break;
    case 'object': {
      if (value === null) {
        meter.bytes += 4;
        break;
      }
      // A cycle never ends, so it trips this cap; the caller tells a cycle from deep nesting.
      if (depth >= meter.maxDepth) throw new WalkFailure('too_deep', `nesting deeper than ${meter.maxDepth} levels`);
      if (depth > meter.deepest) meter.deepest = depth;
      if (Array.isArray(value)) {
        // An Array subclass would survive `slice()` as itself: only plain arrays are JSON.
        if (Object.getPrototypeOf(value) !== Array.prototype) {
          throw new WalkFailure('not_json', `an instance of \`${typeName(value)}\` is not plain JSON`);
        }
        const length = value.length;
        meter.bytes += length === 0 ? 2 : length + 1; // brackets and commas
        if (meter.bytes > meter.cap) throw new WalkFailure('too_large', '');
        let i = 0;
        try {
          for (; i < length; i++) walk(value[i], depth + 1, meter);
        } catch (error) {
          if (error instanceof WalkFailure) error.reversedPath.push(i);
          throw error;
        }
        break;
      }
      const proto: unknown = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) {
        throw new WalkFailure('not_json', `an instance of \`${typeName(value)}\` is not plain JSON`);
      }
      const keys = Object.keys(value);
      const count = keys.length;
      meter.bytes += count === 0 ? 2 : 2 * count + 1; // braces, colons and commas
      if (meter.bytes > meter.cap) throw new WalkFailure('too_large', '');
      let key = '';
      try {
        for (let i = 0; i < count; i++) {
          key = keys[i] as string;
          meter.bytes += stringBytes(key);
          walk((value as Record<string, unknown>)[key], depth + 1, meter);
        }
      } catch (error) {
        if (error instanceof WalkFailure) error.reversedPath.push(key);
        throw error;
      }
      break;
    }
    case 'undefined':
      throw new WalkFailure('not_json', '`undefined` has no JSON form');
    default:
      throw new WalkFailure('not_json', `a ${typeof value} has no JSON form`);
  }
  if (meter.bytes > meter.cap) throw new WalkFailure('too_large', '');
}

/** The size of a JSON value. */
export interface JsonSize {
  /** Bytes of its canonical UTF-8 form. */
  readonly bytes: number;
  /** Containers on its deepest path: 0 for a scalar, 1 for `[1]`, 2 for `{"a":[]}`. */
  readonly nesting: number;
}

/**
 * The size of `value`, checking on the way that it is plain JSON.
 *
 * Stops as soon as the byte count passes `cap` (so a huge value, or a small one shared many times,
 * costs at most `cap` bytes of walking) or nesting passes `maxNesting`; throws {@link WalkFailure}.
 */
export function measureJson(value: unknown, cap: number, maxNesting: number): JsonSize {
  const meter: Meter = { bytes: 0, deepest: -1, cap, maxDepth: maxNesting };
  try {
    walk(value, 0, meter);
  } catch (error) {
    if (error instanceof WalkFailure) throw error;
    // A getter or a proxy trap threw, or the stack ran out: either way the value is not plain data.
    const failure = new WalkFailure('not_json', `reading it threw \`${String(error)}\``);
    throw failure;
  }
  return { bytes: meter.bytes, nesting: meter.deepest + 1 };
}

/** Whether the containers met along `path` from `root` repeat: a too-deep walk that was really a cycle. */
export function hasCycleAlong(root: unknown, path: readonly (string | number)[]): boolean {
  const seen = new Set<unknown>();
  let node: unknown = root;
  for (const token of path) {
    if (typeof node !== 'object' || node === null) return false;
    if (seen.has(node)) return true;
    seen.add(node);
    node = (node as Record<string | number, unknown>)[token];
  }
  return typeof node === 'object' && node !== null && seen.has(node);
}
