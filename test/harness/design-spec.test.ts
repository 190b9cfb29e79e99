import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  compileDesignSpec,
  DesignValidationError,
  firstDifference,
  HarnessConfigError,
  zodDesignSpec,
} from '../../src/harness/index.js';
import { poster, posterSpec } from './helpers/fixtures.js';

describe('compileDesignSpec', () => {
  it('validates the schema itself against the 2020-12 meta-schema when compiled', () => {
    expect(() => compileDesignSpec({ schema: { type: 'object', properties: { a: { type: 'strnig' } } } })).toThrow(
      HarnessConfigError,
    );
    expect(() => compileDesignSpec({ schema: { type: 'object', minProperties: -1 } })).toThrow(HarnessConfigError);
  });

  it('refuses a schema of another draft', () => {
    const schema = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' };
    expect(() => compileDesignSpec({ schema })).toThrow(/2020-12/);
  });

  it('uses 2020-12 semantics (prefixItems)', async () => {
    const spec = compileDesignSpec({ schema: { type: 'array', prefixItems: [{ type: 'number' }], items: false } });

    expect((await spec.checkCandidate([1])).ok).toBe(true);
    expect(await spec.checkCandidate([1, 2])).toMatchObject({ ok: false, refusal: 'invalid' });
  });

  it('reports the first offending pointer of an invalid candidate', async () => {
    const spec = compileDesignSpec(posterSpec);

    const check = await spec.checkCandidate({ ...poster(), color: 'red' });

    expect(check).toMatchObject({
      ok: false,
      refusal: 'invalid',
      issues: [{ pointer: '/color', code: 'pattern_mismatch' }],
    });
  });

  it('refuses a valid candidate that does not round-trip, at the first differing pointer', async () => {
    const spec = compileDesignSpec(posterSpec);

    const check = await spec.checkCandidate({ ...poster(), tags: ['sale', 'retail'] });

    expect(check).toMatchObject({
      ok: false,
      refusal: 'round_trip',
      issues: [{ pointer: '/tags/0', code: 'round_trip' }],
    });
  });

  it('accepts a candidate already in its stored form', async () => {
    const spec = compileDesignSpec(posterSpec);

    expect(await spec.checkCandidate(poster())).toEqual({ ok: true, design: poster() });
  });

  it('migrates and normalises trusted stored input, without touching it', async () => {
    const stored = { title: 'Old', colour: '#00ff00', tags: ['z', 'a'] };
    const spec = compileDesignSpec({
      ...posterSpec,
      inputMigrator: (input) => {
        const { colour, ...rest } = input as { colour: string };
        return { ...rest, color: colour };
      },
    });

    const design = await spec.loadTrusted(stored);

    expect(design).toEqual({ title: 'Old', color: '#00ff00', tags: ['a', 'z'] });
    expect(stored).toEqual({ title: 'Old', colour: '#00ff00', tags: ['z', 'a'] });
  });

  it('refuses trusted input that is still invalid after migration', async () => {
    const spec = compileDesignSpec(posterSpec);

    await expect(spec.loadTrusted({ title: '', color: '#000000', tags: [] })).rejects.toBeInstanceOf(
      DesignValidationError,
    );
    await expect(spec.loadTrusted({ title: 'x', color: '#000000', tags: [], at: new Date() })).rejects.toMatchObject({
      refusal: 'unusable',
    });
  });

  it('runs the validator after the schema, with its own pointers and codes', async () => {
    const spec = compileDesignSpec({
      ...posterSpec,
      validator: (design) =>
        (design as { title: string }).title.includes('!')
          ? [{ pointer: '/title', message: 'No shouting', code: 'shouting' }]
          : [],
    });

    expect(await spec.checkCandidate({ ...poster(), title: 'Sale!' })).toMatchObject({
      ok: false,
      issues: [{ pointer: '/title', code: 'shouting', message: 'No shouting' }],
    });
  });
});

describe('firstDifference', () => {
  it('names the first differing location in canonical member order', () => {
    expect(firstDifference({ b: 1, a: [1, 2] }, { a: [1, 3], b: 2 })).toBe('/a/1');
    expect(firstDifference({ a: [1] }, { a: [1, 2] })).toBe('/a/1');
    expect(firstDifference({ 'x/y': 1 }, {})).toBe('/x~1y');
    expect(firstDifference({ a: 1 }, { a: 1.0 })).toBeNull();
    expect(firstDifference(1, true)).toBe('');
  });
});

describe('zodDesignSpec', () => {
  const schema = z.object({ title: z.string().min(1), owner: z.email(), tags: z.array(z.string()).default([]) });

  it('derives a 2020-12 schema from zod and validates with zod, formats included', async () => {
    const spec = compileDesignSpec(zodDesignSpec(schema));

    expect(spec.promptSchema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(await spec.checkCandidate({ title: 'A', owner: 'a@b.co', tags: [] })).toMatchObject({ ok: true });
    expect(await spec.checkCandidate({ title: 'A', owner: 'not-an-email', tags: [] })).toMatchObject({
      ok: false,
      issues: [{ pointer: '/owner' }],
    });
  });

  it("normalises trusted input with zod's defaults but refuses a candidate zod would change", async () => {
    const trimmed = z.object({ title: z.string().trim().min(1), tags: z.array(z.string()).default([]) });
    const spec = compileDesignSpec(zodDesignSpec(trimmed));

    expect(await spec.loadTrusted({ title: ' A ' })).toEqual({ title: 'A', tags: [] });
    const check = await spec.checkCandidate({ title: ' A ', tags: [] });
    expect(check).toMatchObject({ ok: false, refusal: 'round_trip', issues: [{ pointer: '/title' }] });
  });

  it('refuses a zod schema JSON Schema cannot describe', () => {
    expect(() => zodDesignSpec(z.object({ at: z.date() }))).toThrow(HarnessConfigError);
  });
});
