/**
 * What the input tests call public functions with: `null`, a number, a string, an object whose
 * every trap throws, and a value nested 100k levels (past the call stack of any recursive walk).
 */

/** Throws `Error('boom')`: the trap of the hostile object, and a getter that cannot be read. */
export function boom(): never {
  throw new Error('boom');
}

let deep: unknown = {};
for (let i = 0; i < 100_000; i++) deep = { a: deep };

/** Each kind of garbage by name. */
export const GARBAGE = Object.freeze({
  null: null as unknown,
  number: 5 as unknown,
  string: 'x' as unknown,
  proxy: new Proxy({}, { get: boom, has: boom, ownKeys: boom, getOwnPropertyDescriptor: boom }) as unknown,
  deep,
});
