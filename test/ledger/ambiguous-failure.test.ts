import { describe, expect, it } from 'vitest';
import { isAbortShaped, rejectedOutcome } from '../../src/ledger/ambiguous-failure.js';

const named = (name: string): Error => Object.assign(new Error('x'), { name });

describe('isAbortShaped', () => {
  it.each([
    ['a DOM AbortError', new DOMException('aborted', 'AbortError')],
    ['a DOM TimeoutError', new DOMException('timed out', 'TimeoutError')],
    ["an SDK's user abort", named('APIUserAbortError')],
    ["an SDK's connection timeout", named('APIConnectionTimeoutError')],
    ["Node's ABORT_ERR", Object.assign(new Error('The operation was aborted'), { code: 'ABORT_ERR' })],
    ['a socket timeout', Object.assign(new Error('connect ETIMEDOUT'), { code: 'ETIMEDOUT' })],
    ["LangChain's abort without an error reason", new Error('Aborted')],
    ['a wrapped timeout', new Error('request failed', { cause: named('TimeoutError') })],
  ])('is true for %s', (_what, error) => {
    expect(isAbortShaped(error)).toBe(true);
  });

  it.each([
    ['an ordinary error', new Error('card declined')],
    ['a string', 'Aborted'],
    ['null', null],
    ['an error whose cause is ordinary', new Error('x', { cause: new Error('y') })],
  ])('is false for %s', (_what, error) => {
    expect(isAbortShaped(error)).toBe(false);
  });
});

describe('rejectedOutcome', () => {
  const timeout = named('TimeoutError');

  it('makes an ambiguous rejection before the boundary UNKNOWN for single_use and non_replayable', () => {
    for (const spendability of ['single_use', 'non_replayable'] as const) {
      expect(rejectedOutcome({ boundary: 'not_crossed', spendability, error: timeout, aborted: false })).toBe(
        'UNKNOWN',
      );
      expect(rejectedOutcome({ boundary: 'not_crossed', spendability, error: new Error('late'), aborted: true })).toBe(
        'UNKNOWN',
      );
    }
  });

  it('keeps the boundary rule for multi_use and for ordinary errors', () => {
    expect(rejectedOutcome({ boundary: 'not_crossed', spendability: 'multi_use', error: timeout, aborted: true })).toBe(
      'FAILED_BEFORE_EFFECT',
    );
    expect(
      rejectedOutcome({ boundary: 'not_crossed', spendability: 'single_use', error: new Error('no'), aborted: false }),
    ).toBe('FAILED_BEFORE_EFFECT');
    expect(rejectedOutcome({ boundary: 'crossed', spendability: 'single_use', error: timeout, aborted: true })).toBe(
      'FAILED_AFTER_EFFECT',
    );
    expect(rejectedOutcome({ boundary: 'maybe_crossed', spendability: 'multi_use', error: null, aborted: false })).toBe(
      'UNKNOWN',
    );
  });
});
