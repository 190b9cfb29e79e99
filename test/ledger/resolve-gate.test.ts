import { describe, expect, it } from 'vitest';
import {
  type Gate,
  type GateAttempt,
  isExpired,
  resolveGate,
  resolveReadGate,
  resolveSideEffectGate,
  type TransitionRecord,
} from '../../src/index.js';
import { claimHasExpired, gateFor, isLeaseExpired } from '../../src/ledger/resolve-gate.js';
import { gateRecord, inFlight, keyed, NOW, noKey, ofClass } from './gate-fixtures.js';

type Fields = Partial<Record<keyof TransitionRecord, unknown>>;
type Row = [label: string, fields: Fields, attempt: GateAttempt, expected: Gate];

const keyedClass = ofClass('keyed_mutate');
const safe = ofClass('idempotent_mutate');

/** An UNKNOWN keyed record whose first attempt was 1 000 ms ago with provider key `k1`. */
const unknownKeyed: Fields = {
  ...keyedClass,
  outcome: 'UNKNOWN',
  boundary: 'maybe_crossed',
  providerIdempotencyKey: 'k1',
  firstAttemptAt: NOW - 1_000,
};

const incompleteRows: Row[] = [
  ['missing key', { key: undefined }, noKey, 'REPAIR'],
  ['empty key', { key: '' }, noKey, 'REPAIR'],
  ['missing tool', { tool: undefined }, noKey, 'REPAIR'],
  ['invalid outcome', { outcome: 'DONE' }, noKey, 'REPAIR'],
  ['EXPIRED stored as an outcome', { outcome: 'EXPIRED' }, noKey, 'REPAIR'],
  ['invalid boundary', { boundary: 'half_crossed' }, noKey, 'REPAIR'],
  ['IN_FLIGHT without owner', { ...inFlight(NOW + 10), owner: null }, noKey, 'REPAIR'],
  ['IN_FLIGHT with an empty owner', { ...inFlight(NOW + 10), owner: '' }, noKey, 'REPAIR'],
  [
    'FAILED_BEFORE_EFFECT with maybe_crossed',
    { outcome: 'FAILED_BEFORE_EFFECT', boundary: 'maybe_crossed' },
    noKey,
    'REPAIR',
  ],
  ['unknown side-effect class', { sideEffectClass: 'teleport' }, noKey, 'REPAIR'],
  ['a class alias stored instead of a class', { sideEffectClass: 'payment' }, noKey, 'REPAIR'],
  ['invalid retry permission', { retryPermission: 'sometimes' }, noKey, 'REPAIR'],
  ['invalid spendability', { spendability: 'twice' }, noKey, 'REPAIR'],
  ['non-integer version', { version: 1.5 }, noKey, 'REPAIR'],
  ['missing fence', { fence: undefined }, noKey, 'REPAIR'],
  ['lease given as text', { ...inFlight(null), leaseUntil: '2026-01-01' }, noKey, 'REPAIR'],
  ['missing firstAttemptAt', { firstAttemptAt: undefined }, noKey, 'REPAIR'],
];

const sideEffectRows: Row[] = [
  ...incompleteRows,
  // COMPLETED: never re-spent, whatever the spendability.
  ['COMPLETED multi_use', { ...safe, outcome: 'COMPLETED' }, noKey, 'RETURN'],
  ['COMPLETED single_use', { ...keyedClass, outcome: 'COMPLETED', boundary: 'crossed' }, keyed('k1'), 'RETURN'],
  [
    'COMPLETED non_replayable',
    { ...ofClass('irreversible'), outcome: 'COMPLETED', boundary: 'crossed' },
    noKey,
    'RETURN',
  ],
  // IN_FLIGHT with a live lease.
  ['IN_FLIGHT held', { ...keyedClass, ...inFlight(NOW + 5_000) }, keyed('k1'), 'POLL'],
  [
    'IN_FLIGHT held, boundary maybe_crossed',
    { ...keyedClass, ...inFlight(NOW + 5_000), boundary: 'maybe_crossed' },
    noKey,
    'POLL',
  ],
  ['IN_FLIGHT unbounded (leaseUntil null)', { ...ofClass('irreversible'), ...inFlight(null) }, noKey, 'POLL'],
  ['IN_FLIGHT held at now === leaseUntil - 1', { ...ofClass('irreversible'), ...inFlight(NOW + 1) }, noKey, 'POLL'],
  // BLOCKED and UNKNOWN.
  ['BLOCKED', { ...safe, outcome: 'BLOCKED' }, noKey, 'HARD_BLOCK'],
  [
    'UNKNOWN',
    { ...ofClass('non_idempotent_mutate'), outcome: 'UNKNOWN', boundary: 'maybe_crossed' },
    noKey,
    'HARD_BLOCK',
  ],
  ['UNKNOWN of a safe class', { ...safe, outcome: 'UNKNOWN', boundary: 'maybe_crossed' }, noKey, 'HARD_BLOCK'],
  ['UNKNOWN keyed, same key, window open', unknownKeyed, keyed('k1', 5_000), 'ALLOW'],
  ['UNKNOWN keyed, same key, window open by 1 ms', unknownKeyed, keyed('k1', 1_001), 'ALLOW'],
  [
    'UNKNOWN keyed, same key, window closed (now === firstAttemptAt + ttl)',
    unknownKeyed,
    keyed('k1', 1_000),
    'HARD_BLOCK',
  ],
  ['UNKNOWN keyed, same key, window long closed', unknownKeyed, keyed('k1', 10), 'HARD_BLOCK'],
  ['UNKNOWN keyed, different key', unknownKeyed, keyed('k2', 5_000), 'HARD_BLOCK'],
  ['UNKNOWN keyed, no key on the attempt', unknownKeyed, keyed(null, 5_000), 'HARD_BLOCK'],
  [
    'UNKNOWN keyed, no key on either side',
    { ...unknownKeyed, providerIdempotencyKey: null },
    keyed(null, 5_000),
    'HARD_BLOCK',
  ],
  ['UNKNOWN keyed, same key, no ttl', unknownKeyed, keyed('k1'), 'HARD_BLOCK'],
  ['UNKNOWN keyed, same key, ttl 0', unknownKeyed, keyed('k1', 0), 'HARD_BLOCK'],
  [
    'UNKNOWN non-keyed permission, same key, window open',
    { ...unknownKeyed, ...ofClass('non_idempotent_mutate') },
    keyed('k1', 5_000),
    'HARD_BLOCK',
  ],
  // EXPIRED (IN_FLIGHT whose lease has passed).
  ['EXPIRED exactly at now === leaseUntil (safe)', { ...safe, ...inFlight(NOW) }, noKey, 'ALLOW'],
  [
    'EXPIRED exactly at now === leaseUntil (irreversible)',
    { ...ofClass('irreversible'), ...inFlight(NOW) },
    noKey,
    'HARD_BLOCK',
  ],
  ['EXPIRED with maybe_crossed', { ...safe, ...inFlight(NOW - 1), boundary: 'maybe_crossed' }, noKey, 'HARD_BLOCK'],
  ['EXPIRED with crossed', { ...safe, ...inFlight(NOW - 1), boundary: 'crossed' }, noKey, 'HARD_BLOCK'],
  ['EXPIRED not_crossed single_use (keyed)', { ...keyedClass, ...inFlight(NOW - 1) }, keyed('k1'), 'HARD_BLOCK'],
  [
    'EXPIRED not_crossed single_use (non_idempotent)',
    { ...ofClass('non_idempotent_mutate'), ...inFlight(NOW - 1) },
    noKey,
    'HARD_BLOCK',
  ],
  ['EXPIRED not_crossed non_replayable', { ...ofClass('irreversible'), ...inFlight(NOW - 1) }, noKey, 'HARD_BLOCK'],
  ['EXPIRED not_crossed multi_use + safe_retry', { ...safe, ...inFlight(NOW - 1) }, noKey, 'ALLOW'],
  [
    'EXPIRED not_crossed multi_use + manual',
    { ...safe, retryPermission: 'manual_reconciliation_required', ...inFlight(NOW - 1) },
    noKey,
    'HARD_BLOCK',
  ],
  [
    'EXPIRED not_crossed multi_use + never_retry',
    { ...safe, retryPermission: 'never_retry_automatically', ...inFlight(NOW - 1) },
    noKey,
    'HARD_BLOCK',
  ],
  [
    'EXPIRED not_crossed multi_use + keyed permission',
    { ...safe, retryPermission: 'retry_only_with_same_provider_idempotency_key', ...inFlight(NOW - 1) },
    keyed('k1'),
    'HARD_BLOCK',
  ],
  // FAILED_AFTER_EFFECT.
  [
    'FAILED_AFTER_EFFECT (safe class)',
    { ...safe, outcome: 'FAILED_AFTER_EFFECT', boundary: 'crossed' },
    noKey,
    'HARD_BLOCK',
  ],
  [
    'FAILED_AFTER_EFFECT (keyed, same key)',
    { ...keyedClass, outcome: 'FAILED_AFTER_EFFECT', boundary: 'crossed', providerIdempotencyKey: 'k1' },
    keyed('k1', 60_000),
    'HARD_BLOCK',
  ],
  // FAILED_BEFORE_EFFECT.
  [
    'FAILED_BEFORE_EFFECT crossed',
    { ...safe, outcome: 'FAILED_BEFORE_EFFECT', boundary: 'crossed' },
    noKey,
    'HARD_BLOCK',
  ],
  [
    'FAILED_BEFORE_EFFECT never_retry',
    { ...ofClass('irreversible'), outcome: 'FAILED_BEFORE_EFFECT' },
    noKey,
    'HARD_BLOCK',
  ],
  [
    'FAILED_BEFORE_EFFECT manual',
    { ...ofClass('non_idempotent_mutate'), outcome: 'FAILED_BEFORE_EFFECT' },
    noKey,
    'HARD_BLOCK',
  ],
  [
    'FAILED_BEFORE_EFFECT keyed, no key param declared (cooperative)',
    { ...keyedClass, outcome: 'FAILED_BEFORE_EFFECT' },
    noKey,
    'ALLOW',
  ],
  [
    'FAILED_BEFORE_EFFECT keyed, same key',
    { ...keyedClass, outcome: 'FAILED_BEFORE_EFFECT', providerIdempotencyKey: 'k1' },
    keyed('k1'),
    'ALLOW',
  ],
  [
    'FAILED_BEFORE_EFFECT keyed, different key',
    { ...keyedClass, outcome: 'FAILED_BEFORE_EFFECT', providerIdempotencyKey: 'k1' },
    keyed('k2'),
    'HARD_BLOCK',
  ],
  [
    'FAILED_BEFORE_EFFECT keyed, key missing on the attempt',
    { ...keyedClass, outcome: 'FAILED_BEFORE_EFFECT', providerIdempotencyKey: 'k1' },
    keyed(null),
    'HARD_BLOCK',
  ],
  [
    'FAILED_BEFORE_EFFECT keyed, key missing on the record',
    { ...keyedClass, outcome: 'FAILED_BEFORE_EFFECT', providerIdempotencyKey: null },
    keyed('k1'),
    'HARD_BLOCK',
  ],
  ['FAILED_BEFORE_EFFECT safe_retry', { ...safe, outcome: 'FAILED_BEFORE_EFFECT' }, noKey, 'ALLOW'],
];

describe('resolveSideEffectGate', () => {
  it.each(sideEffectRows)('%s → %s', (_label, fields, attempt, expected) => {
    const record = Object.freeze(gateRecord(fields));

    const decision = resolveSideEffectGate(record, attempt, NOW);

    expect(decision.gate).toBe(expected);
    expect(decision.reason).toEqual(expect.any(String));
    expect(decision.reason.length).toBeGreaterThan(0);
  });

  it('names the offending field when it routes to REPAIR', () => {
    const decision = resolveSideEffectGate(gateRecord({ boundary: 'half_crossed' }), noKey, NOW);

    expect(decision.reason).toContain('`boundary`');
  });

  it('is a pure function: same inputs, same decision', () => {
    const record = gateRecord({ ...safe, ...inFlight(NOW) });

    expect(resolveSideEffectGate(record, noKey, NOW)).toEqual(resolveSideEffectGate(record, noKey, NOW));
  });
});

const read = ofClass('read');

const readRows: Row[] = [
  ['COMPLETED', { ...read, outcome: 'COMPLETED' }, noKey, 'RETURN'],
  ['IN_FLIGHT held', { ...read, ...inFlight(NOW + 1) }, noKey, 'POLL'],
  ['IN_FLIGHT unbounded', { ...read, ...inFlight(null) }, noKey, 'POLL'],
  ['EXPIRED (now === leaseUntil)', { ...read, ...inFlight(NOW) }, noKey, 'RECLAIM'],
  ['EXPIRED with maybe_crossed', { ...read, ...inFlight(NOW - 1), boundary: 'maybe_crossed' }, noKey, 'RECLAIM'],
  ['FAILED_BEFORE_EFFECT', { ...read, outcome: 'FAILED_BEFORE_EFFECT' }, noKey, 'RECLAIM'],
  ['FAILED_AFTER_EFFECT', { ...read, outcome: 'FAILED_AFTER_EFFECT', boundary: 'crossed' }, noKey, 'RECLAIM'],
  ['UNKNOWN', { ...read, outcome: 'UNKNOWN', boundary: 'maybe_crossed' }, noKey, 'SOFT_BLOCK'],
  ['BLOCKED', { ...read, outcome: 'BLOCKED' }, noKey, 'SOFT_BLOCK'],
  ['incomplete: missing key', { ...read, key: undefined }, noKey, 'REPAIR'],
  ['incomplete: invalid outcome', { ...read, outcome: 'DONE' }, noKey, 'REPAIR'],
  ['incomplete: IN_FLIGHT without owner', { ...read, ...inFlight(NOW + 1), owner: null }, noKey, 'REPAIR'],
  ['incomplete: unknown class', { ...read, sideEffectClass: 'teleport' }, noKey, 'REPAIR'],
];

describe('resolveReadGate', () => {
  it.each(readRows)('%s → %s', (_label, fields, attempt, expected) => {
    const record = Object.freeze(gateRecord(fields));

    expect(resolveReadGate(record, attempt, NOW).gate).toBe(expected);
  });
});

describe('resolveGate', () => {
  it.each<[string, Fields, Gate]>([
    ['a read goes to the read resolver', { ...read, outcome: 'UNKNOWN', boundary: 'maybe_crossed' }, 'SOFT_BLOCK'],
    ['a read that failed is reclaimed', { ...read, outcome: 'FAILED_AFTER_EFFECT', boundary: 'crossed' }, 'RECLAIM'],
    [
      'a write goes to the side-effect resolver',
      { ...safe, outcome: 'UNKNOWN', boundary: 'maybe_crossed' },
      'HARD_BLOCK',
    ],
    ['an expired safe write is allowed, not reclaimed', { ...safe, ...inFlight(NOW) }, 'ALLOW'],
  ])('%s', (_label, fields, expected) => {
    expect(resolveGate(gateRecord(fields), noKey, NOW).gate).toBe(expected);
  });

  it("gives the ledger's own unchecked resolver the same decision on every row, REPAIR included", () => {
    for (const [, fields, attempt] of [...incompleteRows, ...sideEffectRows]) {
      const record = Object.freeze(gateRecord(fields));
      expect(gateFor(record, attempt, NOW)).toEqual(resolveGate(record, attempt, NOW));
      expect(claimHasExpired(record, NOW)).toBe(isExpired(record, NOW));
    }
    // The public resolver checks its arguments; the ledger's own does not read them twice.
    expect(() => resolveGate(null as never, noKey, NOW)).toThrow(/`resolveGate`: `record` must be a transition record/);
  });
});

describe('lease expiry', () => {
  it.each<[string, number | null, string, boolean, boolean]>([
    ['lease in the future', NOW + 1, 'IN_FLIGHT', false, false],
    ['lease ends now', NOW, 'IN_FLIGHT', true, true],
    ['lease ended', NOW - 1, 'IN_FLIGHT', true, true],
    ['unbounded lease', null, 'IN_FLIGHT', false, false],
    ['lease ended on a terminal record', NOW - 1, 'FAILED_BEFORE_EFFECT', true, false],
  ])('%s: leaseExpired=%s/%s', (_label, leaseUntil, outcome, leaseExpired, expired) => {
    const record = gateRecord({ outcome, owner: 'w', leaseUntil });

    expect(isLeaseExpired(record, NOW)).toBe(leaseExpired);
    expect(isExpired(record, NOW)).toBe(expired);
  });
});
