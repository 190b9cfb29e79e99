import { describe, expect, it } from 'vitest';
import { checkMetadata } from '../../src/harness/visual/check-artifact.js';

describe('checkMetadata', () => {
  it('returns a deeply frozen private copy of the metadata', () => {
    const given = { source: { url: 'https://example.test/a.png', tags: ['hero'] } };
    const check = checkMetadata(given, 1_000);
    if (!check.ok) throw new Error(check.problem);
    expect(check.metadata).toEqual(given);
    expect(check.metadata).not.toBe(given);
    const source = (check.metadata as typeof given).source;
    expect(Object.isFrozen(source)).toBe(true);
    expect(Object.isFrozen(source.tags)).toBe(true);
    given.source.tags.push('changed later');
    expect(source.tags).toEqual(['hero']);
  });

  it('refuses metadata that is not an object, not JSON, or too large', () => {
    expect(checkMetadata([1], 1_000)).toMatchObject({ ok: false, kind: 'not_object' });
    expect(checkMetadata({ n: Number.NaN }, 1_000)).toMatchObject({ ok: false, kind: 'not_json' });
    expect(checkMetadata({ text: 'x'.repeat(100) }, 50)).toMatchObject({ ok: false, kind: 'too_large' });
    expect(checkMetadata(undefined, 10)).toEqual({ ok: true, metadata: {} });
  });
});
