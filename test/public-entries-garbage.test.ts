/**
 * Every function every package entry exports, called with garbage as its first argument — null, a
 * number, a string, an object whose every trap throws, a value nested 100k levels — either works
 * or refuses with a GuardError: never a TypeError, RangeError or SyntaxError from somewhere inside.
 * The entries are read from package.json, so a function added later is covered without a new row.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GuardError } from '../src/errors.js';
import { GARBAGE } from './helpers/garbage.js';

const root = new URL('..', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
  exports: Record<string, string | { default: string }>;
};
const entries = Object.entries(manifest.exports)
  .map(([name, target]) => [name, typeof target === 'string' ? target : target.default] as const)
  .filter(([, target]) => target.endsWith('.js'))
  .map(([name, target]) => [name, target.replace(/^\.\/dist\//, '../src/').replace(/\.js$/, '.ts')] as const);

const cwd = process.cwd();
let scratch = '';
beforeAll(() => {
  // A factory given garbage must not leave files behind; whatever it might write lands here.
  scratch = mkdtempSync(join(tmpdir(), 'hyphae-garbage-'));
  process.chdir(scratch);
});
afterAll(() => {
  process.chdir(cwd);
  rmSync(scratch, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
});

/** What a call threw or its promise rejected with; a promise still pending after a moment passes. */
async function failureOf(call: () => unknown): Promise<unknown> {
  try {
    const result = call();
    if (result instanceof Promise) {
      let timer: NodeJS.Timeout | undefined;
      const settled = await Promise.race([
        result.then(
          () => undefined,
          (error: unknown) => error,
        ),
        new Promise((resolve) => {
          timer = setTimeout(resolve, 250);
        }),
      ]);
      clearTimeout(timer);
      return settled;
    }
  } catch (error) {
    return error;
  }
  return undefined;
}

function isClass(value: unknown): boolean {
  return typeof value === 'function' && /^class\b/.test(Function.prototype.toString.call(value));
}

describe.each(entries)('entry %s', (_, path) => {
  it('refuses garbage only with GuardErrors', async () => {
    const module = (await import(path)) as Record<string, unknown>;
    const functions = Object.entries(module).filter(([, value]) => typeof value === 'function' && !isClass(value));
    const untyped: string[] = [];
    for (const [name, fn] of functions) {
      for (const [kind, garbage] of Object.entries(GARBAGE)) {
        const failure = await failureOf(() => (fn as (value: unknown) => unknown)(garbage));
        if (failure !== undefined && !(failure instanceof GuardError)) {
          const detail = failure instanceof Error ? `${failure.name}: ${failure.message}` : String(failure);
          untyped.push(`${name}(${kind}) → ${detail.slice(0, 120)}`);
        }
      }
    }

    expect(functions.length).toBeGreaterThan(0);
    expect(untyped).toEqual([]);
  });
});
