import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../../src/core/deep-freeze.js';

describe('deepFreeze', () => {
  it('freezes nested objects and arrays and returns the same value', () => {
    const value = { a: { b: [1, { c: 2 }] }, d: 'x' };
    expect(deepFreeze(value)).toBe(value);
    expect(Object.isFrozen(value.a)).toBe(true);
    expect(Object.isFrozen(value.a.b)).toBe(true);
    expect(Object.isFrozen(value.a.b[1])).toBe(true);
    expect(() => {
      (value.a.b[1] as { c: number }).c = 3;
    }).toThrow(TypeError);
  });

  it('leaves primitives alone and stops at cycles', () => {
    expect(deepFreeze(3)).toBe(3);
    expect(deepFreeze(null)).toBe(null);
    const cyclic: { self?: unknown } = {};
    cyclic.self = cyclic;
    expect(Object.isFrozen(deepFreeze(cyclic))).toBe(true);
  });
});
