import { describe, expect, it } from 'vitest';
import { FuseConfigError } from '../../src/fuses/errors.js';
import { judgeGate } from '../../src/fuses/judge.js';
import { FuseCode } from '../../src/fuses/verdict.js';
import { refused } from './helpers.js';

const gate = judgeGate<string>({
  hardChecks: {
    cites_a_source: (text) => text.includes('[1]'),
    no_placeholder: (text) => !text.includes('TODO'),
  },
  advisoryChecks: { under_20_words: (text) => text.split(/\s+/).length < 20 },
  threshold: 0.7,
});

describe('judgeGate', () => {
  it('lets a hard check overrule a perfect self-score', () => {
    const verdict = gate.judge({ output: 'Refunds take five days. TODO', selfScore: 1 });

    expect(refused(verdict)).toMatchObject({ fuse: 'judge', code: FuseCode.judge_hard_check_failed, terminal: false });
    expect(refused(verdict).evidence.failedHard).toEqual(['cites_a_source', 'no_placeholder']);
    expect(verdict.critique).toBe('Missing (required): `cites_a_source`, `no_placeholder`');
    expect(refused(verdict).note).toContain('NOT accepted');
  });

  it('accepts an output that passes its hard checks and reaches the threshold', () => {
    const verdict = gate.judge({ output: 'Refunds take five days [1].', selfScore: 0.8 });

    expect(verdict.allowed).toBe(true);
    expect(verdict.critique).toBe('Nothing is missing');
    expect(verdict.checks).toEqual([
      { name: 'cites_a_source', kind: 'hard', passed: true },
      { name: 'no_placeholder', kind: 'hard', passed: true },
      { name: 'under_20_words', kind: 'advisory', passed: true },
    ]);
  });

  it('refuses a self-score below the threshold', () => {
    expect(refused(gate.judge({ output: 'Fine [1].', selfScore: 0.69 })).code).toBe(FuseCode.judge_below_threshold);
    expect(gate.judge({ output: 'Fine [1].', selfScore: 0.7 }).allowed).toBe(true);
  });

  it('only reports advisory checks, listing them in the critique', () => {
    const long = `${'word '.repeat(30)}[1]`;

    const verdict = gate.judge({ output: long, selfScore: 0.9 });

    expect(verdict.allowed).toBe(true);
    expect(verdict.critique).toBe('Missing (advised): `under_20_words`');
  });

  it.each([Number.NaN, -0.01, 1.01, Number.POSITIVE_INFINITY, '0.9', undefined])(
    'rejects the self-score %s',
    (score) => {
      const verdict = gate.judge({ output: 'Fine [1].', selfScore: score as number });

      expect(refused(verdict).code).toBe(FuseCode.judge_invalid_score);
    },
  );

  it('counts a throwing check, or one that does not return a boolean, as failed', () => {
    const fragile = judgeGate<{ text?: string }>({
      hardChecks: {
        has_text: (output) => (output.text as string).length > 0,
        returns_truthy: (() => 'yes') as unknown as () => boolean,
      },
      threshold: 0,
    });

    const verdict = fragile.judge({ output: {}, selfScore: 1 });

    expect(refused(verdict).code).toBe(FuseCode.judge_hard_check_failed);
    expect(verdict.checks[0]).toMatchObject({ passed: false, error: expect.stringContaining('threw') });
    expect(verdict.checks[1]).toMatchObject({ passed: false, error: 'returned `string`, not a boolean' });
  });

  it.each([Number.NaN, -0.1, 1.5])('rejects the threshold %s at construction', (threshold) => {
    expect(() => judgeGate({ threshold })).toThrow(FuseConfigError);
  });
});
