import { describe, expect, it } from 'vitest';
import { codeList } from '../../src/core/code-list.js';

describe('codeList', () => {
  it('writes each value as a code span, comma-separated, from any iterable', () => {
    expect(codeList(['render:1', 'render:2'])).toBe('`render:1`, `render:2`');
    expect(codeList(new Map([['a', 1]]).keys())).toBe('`a`');
    expect(codeList([1, true])).toBe('`1`, `true`');
  });

  it('says `none` for an empty list', () => {
    expect(codeList([])).toBe('none');
    expect(codeList(new Set<string>())).toBe('none');
  });
});
