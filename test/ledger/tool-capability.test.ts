/**
 * Tool capability declarations: the floor rules at definition (a declaration looser than the class
 * and its mechanisms allow is refused, naming the tool, the class and the allowed capabilities),
 * and `blind` at run time (an UNKNOWN record never retries).
 */
import { describe, expect, it } from 'vitest';
import {
  allowedCapabilities,
  LedgerHardBlockError,
  type SideEffectClass,
  sideEffect,
  ToolCapabilityDeclarationError,
} from '../../src/index.js';
import { newLedger, rejectionOf } from './ledger-helpers.js';

const NONE = { reconciler: false, providerKey: false };
const notExecuted = () => ({ status: 'NOT_EXECUTED' }) as const;

describe('allowed capabilities', () => {
  it.each([
    ['read', NONE, ['idempotent', 'blind']],
    ['read', { reconciler: true, providerKey: false }, ['idempotent', 'queryable', 'blind']],
    ['idempotent_mutate', { reconciler: false, providerKey: true }, ['idempotent', 'queryable', 'blind']],
    ['keyed_mutate', NONE, ['blind']],
    ['keyed_mutate', { reconciler: false, providerKey: true }, ['queryable', 'blind']],
    ['non_idempotent_mutate', { reconciler: false, providerKey: true }, ['blind']],
    ['non_idempotent_mutate', { reconciler: true, providerKey: false }, ['queryable', 'blind']],
    ['irreversible', { reconciler: true, providerKey: true }, ['blind']],
  ] as const)('%s with %o: %o', (sideEffectClass, mechanisms, allowed) => {
    expect(allowedCapabilities(sideEffectClass, mechanisms)).toEqual(allowed);
  });
});

describe('a declaration at definition', () => {
  function define(sideEffectClass: SideEffectClass, extra: Record<string, unknown>, ledgerReconciler = false) {
    const ledger = newLedger(ledgerReconciler ? { reconciler: notExecuted } : {});
    return () => ledger.tool({ name: 'pay', sideEffectClass, ...extra }, () => 'ok');
  }

  it('looser than the class allows is refused with the tool, the class and the allowed capabilities', () => {
    let error: unknown;
    try {
      define('irreversible', { capability: 'queryable', reconciler: notExecuted })();
    } catch (caught) {
      error = caught;
    }

    expect(error).toBeInstanceOf(ToolCapabilityDeclarationError);
    expect(error).toMatchObject({
      code: 'invalid_capability',
      tool: 'pay',
      sideEffectClass: 'irreversible',
      capability: 'queryable',
      allowed: ['blind'],
    });
    expect((error as Error).message).toContain('Tool `pay` (`irreversible`) cannot declare capability `queryable`');
    expect(define('keyed_mutate', { capability: 'idempotent', providerIdempotencyKeyParam: 'key' })).toThrow(
      ToolCapabilityDeclarationError,
    );
    expect(define('read', { capability: 'fast' })).toThrow(/is not a capability/);
  });

  it('`queryable` needs a reconciler or a provider key, and for `non_idempotent_mutate` a reconciler', () => {
    expect(define('keyed_mutate', { capability: 'queryable' })).toThrow(/give it a `reconciler` or a/);
    expect(define('non_idempotent_mutate', { capability: 'queryable', providerIdempotencyKeyParam: 'k' })).toThrow(
      /give it a `reconciler` \(allowed/,
    );
    expect(define('keyed_mutate', { capability: 'queryable', providerIdempotencyKeyParam: 'key' })).not.toThrow();
    expect(define('non_idempotent_mutate', { capability: 'queryable' }, true)).not.toThrow();
    expect(define('read', { capability: 'queryable', reconciler: notExecuted })).not.toThrow();
  });

  it('tighter than the class is accepted', () => {
    expect(define('read', { capability: 'blind' })).not.toThrow();
    expect(define('keyed_mutate', { capability: 'blind', providerIdempotencyKeyParam: 'key' })).not.toThrow();
  });
});

describe('a `blind` tool with an UNKNOWN record', () => {
  /** A keyed payment whose first attempt dies inside its side effect (UNKNOWN), with a same-key retry window. */
  function keyedPayment(capability: 'queryable' | 'blind') {
    const ledger = newLedger();
    const state = { runs: 0 };
    const pay = ledger.tool(
      {
        name: 'pay',
        sideEffectClass: 'keyed_mutate',
        providerIdempotencyKeyParam: 'key',
        providerIdempotencyKeyTtlMs: 3_600_000,
        capability,
      },
      (_args: { amount: number; key: string }) =>
        sideEffect(() => {
          state.runs++;
          if (state.runs === 1) throw new Error('connection reset');
          return 'paid';
        }),
    );
    return { pay, state };
  }

  it('hard-blocks where a `queryable` one retries with the same provider key', async () => {
    const queryable = keyedPayment('queryable');
    const blind = keyedPayment('blind');
    for (const { pay } of [queryable, blind]) await rejectionOf(pay({ amount: 1, key: 'k1' }, { toolCallId: 'c' }));

    const retried = await queryable.pay({ amount: 1, key: 'k1' }, { toolCallId: 'c' });
    const blocked = await rejectionOf(blind.pay({ amount: 1, key: 'k1' }, { toolCallId: 'c' }));

    expect(retried).toBe('paid');
    expect(blocked).toBeInstanceOf(LedgerHardBlockError);
    expect((blocked as Error).message).toContain('`blind`');
    expect(blind.state.runs).toBe(1);
  });

  it('of class `read` hard-blocks instead of retrying', async () => {
    const ledger = newLedger();
    let runs = 0;
    const spec = { name: 'lookup', sideEffectClass: 'read', capability: 'blind' } as const;
    const lookup = ledger.tool(spec, () =>
      sideEffect(() => {
        runs++;
        if (runs === 1) throw new Error('timeout');
        return 'found';
      }),
    );
    await rejectionOf(lookup({}, { toolCallId: 'c' }));

    const error = await rejectionOf(lookup({}, { toolCallId: 'c' }));

    expect(error).toBeInstanceOf(LedgerHardBlockError);
    expect(runs).toBe(1);
  });
});
