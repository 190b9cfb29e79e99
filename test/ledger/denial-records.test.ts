/**
 * A refused call leaves a durable denial record on every store, never claims its transition, and
 * the same call once allowed runs exactly once.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createLedger, effectStateOf, LedgerDecisionDeniedError, LedgerReleaseRefusedError } from '../../src/index.js';
import type { DecisionVerdict } from '../../src/records/decision.js';
import { everyStore, ledgerOn } from '../helpers/every-store.js';
import { collectingLogger, instrumentedStorage, rejectionOf } from './ledger-helpers.js';
import { receiptLedger } from './receipts/ledger-fixture.js';

const stores = await everyStore();

const LOOP: readonly DecisionVerdict[] = [
  { check: 'registry', verdict: 'allow' },
  { check: 'fuses', verdict: 'deny', reason: 'loop: loop_detected' },
];

describe.each(stores)('denial records on %s', (_name, backend) => {
  afterAll(() => backend.dispose());

  it('writes one denial per refusal, counts repeats, and leaves the transition to run once when allowed', async () => {
    const { storage, cleanup } = await backend.open();
    try {
      const ledger = ledgerOn(storage);
      const tool = `send_payment_${randomUUID().slice(0, 8)}`;
      let runs = 0;
      const pay = ledger.tool({ name: tool, sideEffectClass: 'payment' }, async () => {
        runs++;
        return { paid: runs };
      });
      const call = { toolCallId: `call_${randomUUID()}`, scope: { runId: 'run-1' } };

      const first = await rejectionOf(pay({ amount: 5 }, { ...call, verdicts: LOOP }));
      const again = await rejectionOf(pay({ amount: 5 }, { ...call, verdicts: LOOP }));

      expect(first).toBeInstanceOf(LedgerDecisionDeniedError);
      expect(again).toBeInstanceOf(LedgerDecisionDeniedError);
      expect(runs).toBe(0);
      const denials = (await ledger.list({ tool, kind: 'denial' })).records;
      expect(denials).toHaveLength(1);
      const [denial] = denials;
      expect(denial).toMatchObject({
        kind: 'denial',
        outcome: 'BLOCKED',
        boundary: 'not_crossed',
        ticket: call.toolCallId,
        ticketKey: null,
        owner: null,
        leaseUntil: null,
        attempts: 2,
        decision: { allowed: false, deniedReasons: ['loop: loop_detected'] },
        error: { code: 'decision_denied' },
      });
      expect(JSON.stringify(denial)).not.toContain('amount');
      expect(denial && effectStateOf(denial)).toBe('ABORTED');
      const transitionKey = denial?.refusedTransition as string;
      expect(transitionKey).toMatch(/^[0-9a-f]{64}$/);
      expect(denial?.key).not.toBe(transitionKey);
      expect(await ledger.get(transitionKey)).toBeNull();

      // Allowed now (a fuse reset): the same call claims its own transition and runs exactly once.
      expect(await pay({ amount: 5 }, call)).toEqual({ paid: 1 });
      expect(await pay({ amount: 5 }, call)).toEqual({ paid: 1 });
      expect(runs).toBe(1);
      expect((await ledger.get(transitionKey))?.outcome).toBe('COMPLETED');
      expect((await ledger.list({ tool, kind: 'tool' })).records.map((r) => r.key)).toEqual([transitionKey]);

      const release = await rejectionOf(
        ledger.release(denial?.key as string, { verified: 'not_executed', by: 'ops', reason: 'try' }),
      );
      expect(release).toBeInstanceOf(LedgerReleaseRefusedError);
      expect((release as Error).message).toContain('denial record');
      expect((await ledger.get(denial?.key as string))?.operatorResolution).toBeNull();
    } finally {
      await cleanup();
    }
  });

  it('writes a separate denial for each refused call id and each denying reason', async () => {
    const { storage, cleanup } = await backend.open();
    try {
      const ledger = ledgerOn(storage);
      const tool = `lookup_${randomUUID().slice(0, 8)}`;
      const lookup = ledger.tool({ name: tool, sideEffectClass: 'read' }, async () => 'found');
      const scope = { runId: 'run-2' };
      const approval: DecisionVerdict[] = [{ check: 'approval', verdict: 'deny', reason: 'nobody approved it' }];

      await rejectionOf(lookup({ id: 1 }, { toolCallId: 'c1', scope, verdicts: LOOP }));
      await rejectionOf(lookup({ id: 1 }, { toolCallId: 'c2', scope, verdicts: LOOP }));
      await rejectionOf(lookup({ id: 1 }, { toolCallId: 'c2', scope, verdicts: approval }));

      const denials = (await ledger.list({ tool, kind: 'denial' })).records;
      expect(denials.map((d) => [d.ticket, d.decision?.deniedReasons[0], d.attempts]).sort()).toEqual([
        ['c1', 'loop: loop_detected', 1],
        ['c2', 'loop: loop_detected', 1],
        ['c2', 'nobody approved it', 1],
      ]);
    } finally {
      await cleanup();
    }
  });
});

describe('a denial that cannot be written', () => {
  it('still refuses the call, and says so through the logger and onEvent', async () => {
    const storage = instrumentedStorage();
    storage.fail('create', new Error('connection refused'));
    const logger = collectingLogger();
    const events: string[] = [];
    const ledger = createLedger({
      storage,
      agentId: 'agent',
      policyVersion: 'p1',
      logger,
      onEvent: (event) => events.push(event.type),
    });
    const pay = ledger.tool({ name: 'send_payment', sideEffectClass: 'payment' }, async () => 'paid');

    const error = await rejectionOf(pay({ amount: 1 }, { toolCallId: 'c1', verdicts: LOOP }));

    expect(error).toBeInstanceOf(LedgerDecisionDeniedError);
    expect(logger.entries).toContainEqual({
      level: 'error',
      message: 'Denial could not be recorded; the call was refused all the same',
    });
    expect(events).toEqual(['denial_not_recorded']);
  });

  it('costs nothing on the allowed path: one create and one update, as before', async () => {
    const storage = instrumentedStorage();
    const ledger = createLedger({ storage, agentId: 'agent', policyVersion: 'p1' });
    const pay = ledger.tool({ name: 'send_payment', sideEffectClass: 'payment' }, async () => 'paid');

    await pay({ amount: 1 }, { toolCallId: 'c1', verdicts: [{ check: 'fuses', verdict: 'allow' }] });

    expect(storage.calls).toEqual({ get: 0, create: 1, update: 1 });
  });
});

describe('the receipt of a denial', () => {
  it('is signed once with action kind `denial` and outcome BLOCKED, and the chain verifies', async () => {
    const { ledger, chain } = receiptLedger();
    const pay = ledger.tool({ name: 'send_payment', sideEffectClass: 'payment' }, async () => 'paid');

    await rejectionOf(pay({ amount: 1 }, { toolCallId: 'c1', verdicts: LOOP }));
    await rejectionOf(pay({ amount: 1 }, { toolCallId: 'c1', verdicts: LOOP }));

    const receipts = await chain();
    expect(receipts.map((r) => [r.actionKind, r.outcome, r.action])).toEqual([['denial', 'BLOCKED', 'send_payment']]);
    const [denial] = (await ledger.list({ kind: 'denial' })).records;
    expect(receipts[0]?.transitionKey).toBe(denial?.key);
    expect(denial?.receiptRef).toBe(receipts[0]?.receiptId);
    expect(denial?.attempts).toBe(2);
  });
});
