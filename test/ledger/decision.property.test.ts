import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type DecisionVerdict, effectStateOf, type TransitionDecision } from '../../src/index.js';
import { composeDecision } from '../../src/ledger/decision.js';
import {
  decisionShapeProblem,
  MAX_CHECK_NAME_LENGTH,
  MAX_DECISION_VERDICTS,
  MAX_REASON_LENGTH,
} from '../../src/records/decision.js';

const verdict: fc.Arbitrary<DecisionVerdict> = fc.record(
  {
    check: fc.string({ minLength: 1, maxLength: 200 }),
    verdict: fc.constantFrom('allow' as const, 'deny' as const),
    reason: fc.string({ maxLength: 1_000 }),
  },
  { requiredKeys: ['check', 'verdict'] },
);
const verdicts = fc.array(verdict, { maxLength: MAX_DECISION_VERDICTS * 2 });
const outcome = fc.constantFrom(
  'IN_FLIGHT',
  'COMPLETED',
  'FAILED_BEFORE_EFFECT',
  'FAILED_AFTER_EFFECT',
  'UNKNOWN',
  'BLOCKED',
);
const boundary = fc.constantFrom('not_crossed', 'maybe_crossed', 'crossed');

describe('composeDecision, for any verdicts', () => {
  it('is a valid, bounded decision that allows exactly when no verdict denies', () => {
    fc.assert(
      fc.property(verdicts, (list) => {
        const decision = composeDecision(list);
        expect(decisionShapeProblem(decision)).toBeNull();
        expect(decision.allowed).toBe(list.every((v) => v.verdict === 'allow'));
        expect(decision.verdicts.length).toBeLessThanOrEqual(MAX_DECISION_VERDICTS);
        for (const kept of decision.verdicts) {
          expect(kept.check.length).toBeLessThanOrEqual(MAX_CHECK_NAME_LENGTH);
          expect((kept.reason ?? '').length).toBeLessThanOrEqual(MAX_REASON_LENGTH);
        }
      }),
    );
  });
});

describe('effectStateOf, for any record', () => {
  it('never calls an effect that may have happened ABORTED or INTENDED', () => {
    fc.assert(
      fc.property(outcome, boundary, fc.option(verdicts, { nil: undefined }), (o, b, list) => {
        const decision: TransitionDecision | undefined = list === undefined ? undefined : composeDecision(list);
        const state = effectStateOf(
          decision === undefined ? { outcome: o, boundary: b } : { outcome: o, boundary: b, decision },
        );
        if (o === 'COMPLETED') expect(state).toBe('COMMITTED');
        else if (b !== 'not_crossed') expect(['ATTEMPTING', 'UNKNOWN']).toContain(state);
        if (o !== 'IN_FLIGHT' && o !== 'COMPLETED') expect(['ABORTED', 'UNKNOWN']).toContain(state);
      }),
    );
  });
});
