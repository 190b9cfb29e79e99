import { describe, expect, it } from 'vitest';
import { type Boundary, decisionDigest, EffectState, effectStateOf, type Outcome } from '../../src/index.js';
import { composeDecision } from '../../src/ledger/decision.js';
import { decisionShapeProblem, MAX_DECISION_VERDICTS, MAX_REASON_LENGTH } from '../../src/records/decision.js';

const allowed = composeDecision([{ check: 'fuses', verdict: 'allow' }]);
const denied = composeDecision([{ check: 'approval', verdict: 'deny', reason: 'nobody approved it' }]);

describe('composeDecision', () => {
  it('allows only when every verdict allows, and lists the reasons of those that deny', () => {
    const decision = composeDecision([
      { check: 'registry', verdict: 'allow' },
      { check: 'approval', verdict: 'deny', reason: 'nobody approved `send_payment`' },
      { check: 'secrets', verdict: 'deny' },
    ]);

    expect(decision.allowed).toBe(false);
    expect(decision.deniedReasons).toEqual(['nobody approved `send_payment`', 'secrets']);
    expect(composeDecision([]).allowed).toBe(true);
    expect(Object.isFrozen(decision.verdicts[0])).toBe(true);
  });

  it('stays bounded: long reasons are clipped and verdicts past the limit fold into one, a deny kept', () => {
    const many = Array.from({ length: MAX_DECISION_VERDICTS + 10 }, (_, i) => ({
      check: `check_${i}`,
      verdict: i === MAX_DECISION_VERDICTS + 5 ? ('deny' as const) : ('allow' as const),
      reason: 'x'.repeat(5_000),
    }));

    const decision = composeDecision(many);

    expect(decision.verdicts).toHaveLength(MAX_DECISION_VERDICTS);
    expect(decision.verdicts.at(-1)).toMatchObject({ check: 'truncated', verdict: 'deny' });
    expect(decision.allowed).toBe(false);
    expect(decision.verdicts[0]?.reason).toHaveLength(MAX_REASON_LENGTH);
    expect(JSON.stringify(decision).length).toBeLessThan(20_000);
  });

  it('reads a verdict that is neither allow nor deny as deny', () => {
    const decision = composeDecision([{ check: 'odd', verdict: 'maybe' as 'allow' }]);

    expect(decision).toMatchObject({ allowed: false, deniedReasons: ['odd'] });
  });
});

describe('decisionShapeProblem', () => {
  it('accepts composed decisions and names what is wrong with anything else', () => {
    expect(decisionShapeProblem(allowed)).toBeNull();
    expect(decisionShapeProblem(denied)).toBeNull();
    expect(decisionShapeProblem('yes')).toBe('not a JSON object');
    expect(decisionShapeProblem({ allowed: 'yes', verdicts: [], deniedReasons: [] })).toBe(
      '`allowed` is not a boolean',
    );
    expect(decisionShapeProblem({ allowed: true, verdicts: [{ check: 'fuses' }], deniedReasons: [] })).toBe(
      'check `fuses` has no known `verdict`',
    );
    // An allowed decision with a denying verdict is a lie: a store holding it cannot be trusted.
    expect(
      decisionShapeProblem({ allowed: true, verdicts: [{ check: 'fuses', verdict: 'deny' }], deniedReasons: [] }),
    ).toBe('`allowed` disagrees with the verdicts');
  });
});

describe('decisionDigest', () => {
  it('is the same for the same decision whatever the key order, and differs for another', () => {
    const reordered = JSON.parse(
      '{"verdicts":[{"verdict":"allow","check":"fuses"}],"deniedReasons":[],"allowed":true}',
    );

    expect(decisionDigest(reordered)).toBe(decisionDigest(allowed));
    expect(decisionDigest(denied)).not.toBe(decisionDigest(allowed));
    expect(decisionDigest(allowed)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('effectStateOf', () => {
  const boundaries: Boundary[] = ['not_crossed', 'maybe_crossed', 'crossed'];
  const decisions = { none: undefined, allowed, denied } as const;

  // The documented table, row by row (docs/ledger.md, "Effect state").
  function expected(outcome: Outcome, boundary: Boundary, decision: keyof typeof decisions): EffectState {
    const crossed = boundary !== 'not_crossed';
    switch (outcome) {
      case 'COMPLETED':
        return 'COMMITTED';
      case 'UNKNOWN':
      case 'FAILED_AFTER_EFFECT':
        return 'UNKNOWN';
      case 'FAILED_BEFORE_EFFECT':
      case 'BLOCKED':
        return crossed ? 'UNKNOWN' : 'ABORTED';
      case 'IN_FLIGHT':
        if (crossed) return decision === 'denied' ? 'UNKNOWN' : 'ATTEMPTING';
        if (decision === 'denied') return 'ABORTED';
        return decision === 'allowed' ? 'ATTEMPTING' : 'INTENDED';
    }
  }

  it.each(['IN_FLIGHT', 'COMPLETED', 'FAILED_BEFORE_EFFECT', 'FAILED_AFTER_EFFECT', 'UNKNOWN', 'BLOCKED'] as const)(
    'maps %s over every boundary and decision as the table says',
    (outcome) => {
      for (const boundary of boundaries) {
        for (const [name, decision] of Object.entries(decisions) as [keyof typeof decisions, typeof allowed][]) {
          const record = decision === undefined ? { outcome, boundary } : { outcome, boundary, decision };
          expect(effectStateOf(record), `${outcome} ${boundary} ${name}`).toBe(expected(outcome, boundary, name));
        }
      }
    },
  );

  it('fails closed to UNKNOWN on an outcome it does not know', () => {
    expect(effectStateOf({ outcome: 'DONE' as Outcome, boundary: 'not_crossed', decision: allowed })).toBe(
      EffectState.UNKNOWN,
    );
  });
});
