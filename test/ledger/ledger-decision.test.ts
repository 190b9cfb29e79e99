import { describe, expect, it } from 'vitest';
import {
  createManualClock,
  decisionDigest,
  effectStateOf,
  GuardError,
  LedgerDecisionDeniedError,
  LedgerHardBlockError,
  sideEffect,
  type TransitionRecord,
} from '../../src/index.js';
import { verifyReceipts } from '../../src/ledger/receipts/verify-receipts.js';
import { makeTestRecord } from '../../src/testing/index.js';
import { newLedger, onlyRecord, rejectionOf } from './ledger-helpers.js';
import { emailTool, receiptLedger } from './receipts/ledger-fixture.js';

describe('the decision a claim writes', () => {
  it('is durable before the body runs: the body sees its own record ATTEMPTING with the decision', async () => {
    const ledger = newLedger({ clock: createManualClock(7_000) });
    let seen: TransitionRecord | undefined;
    const pay = ledger.tool({ name: 'send_payment', sideEffectClass: 'payment' }, async () => {
      seen = await onlyRecord(ledger);
      return { paid: true };
    });

    await pay(
      { amount: 5 },
      { toolCallId: 'call_1', verdicts: [{ check: 'approval', verdict: 'allow', reason: 'approved' }] },
    );

    expect(seen?.decision).toEqual({
      allowed: true,
      verdicts: [
        { check: 'approval', verdict: 'allow', reason: 'approved' },
        { check: 'ledger', verdict: 'allow', reason: 'fresh claim' },
      ],
      deniedReasons: [],
      at: 7_000,
    });
    expect(seen && effectStateOf(seen)).toBe('ATTEMPTING');
    const done = await onlyRecord(ledger);
    expect(effectStateOf(done)).toBe('COMMITTED');
    expect(done.decision).toEqual(seen?.decision);
  });

  it('records only the ledger verdict for a direct call that brings none', async () => {
    const ledger = newLedger();
    const lookup = ledger.tool({ name: 'lookup', sideEffectClass: 'read' }, async () => 'found');

    await lookup({ id: 1 });

    expect((await onlyRecord(ledger)).decision).toEqual({
      allowed: true,
      verdicts: [{ check: 'ledger', verdict: 'allow', reason: 'fresh claim' }],
      deniedReasons: [],
      at: expect.any(Number),
    });
  });

  it('refuses a denying verdict before any transition is claimed or run', async () => {
    const ledger = newLedger();
    let runs = 0;
    const pay = ledger.tool({ name: 'send_payment', sideEffectClass: 'payment' }, async () => {
      runs++;
    });

    const error = await rejectionOf(
      pay(
        { amount: 5 },
        {
          toolCallId: 'call_1',
          verdicts: [
            { check: 'fuses', verdict: 'allow' },
            { check: 'approval', verdict: 'deny', reason: 'the operator said no' },
          ],
        },
      ),
    );

    expect(error).toBeInstanceOf(LedgerDecisionDeniedError);
    expect(error).toMatchObject({ code: 'decision_denied', decision: { deniedReasons: ['the operator said no'] } });
    expect(runs).toBe(0);
    // Only the denial's own record: no transition was claimed.
    expect((await ledger.list()).records.map((record) => record.kind)).toEqual(['denial']);
  });

  it('refuses malformed verdicts as an invalid option', async () => {
    const ledger = newLedger();
    const pay = ledger.tool({ name: 'send_payment', sideEffectClass: 'payment' }, async () => 1);

    const notArray = await rejectionOf(pay({}, { verdicts: 'allow' as never }));
    const noCheck = await rejectionOf(pay({}, { verdicts: [{ verdict: 'allow' }] as never }));

    expect(notArray).toBeInstanceOf(GuardError);
    expect(notArray).toMatchObject({ code: 'invalid_option' });
    expect(noCheck).toMatchObject({ code: 'invalid_option', message: expect.stringContaining('verdicts[0]') });
    expect((await ledger.list()).records).toEqual([]);
  });

  it('is replaced by a takeover with the decision of the new attempt, naming its gate when a redispatch reclaims it', async () => {
    const clock = createManualClock(1_000);
    const ledger = newLedger({ clock, leaseTtlMs: 100, leaseRenewIntervalMs: 0 });
    const record = await crashedClaim(ledger, clock);
    const sync = ledger.tool({ name: 'sync', sideEffectClass: 'idempotent_mutate' }, async () => 'fresh');

    await sync({}, { toolCallId: 'c1', verdicts: [{ check: 'fuses', verdict: 'allow', reason: 'redispatch' }] });

    const after = await ledger.get(record.key);
    expect(after?.attempts).toBe(2);
    expect(after?.decision?.verdicts).toEqual([
      { check: 'fuses', verdict: 'allow', reason: 'redispatch' },
      { check: 'ledger', verdict: 'allow', reason: expect.stringMatching(/^ALLOW: /) },
    ]);
  });

  it('derives ABORTED and UNKNOWN from how the body failed, and names a consumed release', async () => {
    const ledger = newLedger();
    const { send, plan } = emailToolOn(ledger);

    plan.push('before');
    await rejectionOf(send({ to: 'a@example.com' }, { toolCallId: 'a' }));
    plan.push('inside');
    await rejectionOf(send({ to: 'b@example.com' }, { toolCallId: 'b' }));

    const { records } = await ledger.list();
    const byTicket = new Map(records.map((r) => [r.ticket, r]));
    const unknown = byTicket.get('b') as TransitionRecord;
    expect(effectStateOf(byTicket.get('a') as TransitionRecord)).toBe('ABORTED');
    expect(effectStateOf(unknown)).toBe('UNKNOWN');

    // The redispatch is refused; an operator's `not_executed` release lets it run once, and says so.
    expect(await rejectionOf(send({ to: 'b@example.com' }, { toolCallId: 'b' }))).toBeInstanceOf(LedgerHardBlockError);
    await ledger.release(unknown.key, { verified: 'not_executed', by: 'ops', reason: 'checked the SMTP log' });
    await send({ to: 'b@example.com' }, { toolCallId: 'b' });
    const rerun = await ledger.get(unknown.key);
    expect(rerun && effectStateOf(rerun)).toBe('COMMITTED');
    expect(rerun?.decision?.verdicts.at(-1)).toEqual({
      check: 'ledger',
      verdict: 'allow',
      reason: 'operator release: not_executed, verified by ops',
    });
  });
});

describe('receipts carry the decision digest', () => {
  it('puts the digest of the record decision on its outcome receipt, and the chain verifies', async () => {
    const setup = receiptLedger();
    const { send } = emailTool(setup.ledger);

    await send({ to: 'a@example.com' }, { toolCallId: 'a', verdicts: [{ check: 'fuses', verdict: 'allow' }] });

    const [receipt] = await setup.chain();
    const record = await onlyRecord(setup.ledger);
    expect(record.decision).toBeDefined();
    expect(receipt?.decisionHash).toBe(decisionDigest(record.decision as NonNullable<typeof record.decision>));
  });

  it('gives a record older than the protocol a receipt without one, on a chain that verifies', async () => {
    const setup = receiptLedger();
    const older = makeTestRecord({
      agentId: 'agent',
      policyVersion: 'p1',
      outcome: 'COMPLETED',
      owner: null,
      result: 1,
    });
    await setup.ledger.storage.create(older);
    await setup.ledger.sweepReceipts();
    const { send } = emailTool(setup.ledger);
    await send({ to: 'a@example.com' }, { toolCallId: 'a' });

    const [old, fresh] = await setup.chain();

    expect(old?.transitionKey).toBe(older.key);
    expect(old && Object.hasOwn(old, 'decisionHash')).toBe(false);
    expect(fresh?.decisionHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('fails verification when a decision digest is altered', async () => {
    const setup = receiptLedger();
    const { send } = emailTool(setup.ledger);
    await send({ to: 'a@example.com' }, { toolCallId: 'a' });

    const [receipt] = setup.sink.receipts();
    const tampered = { ...receipt, decisionHash: 'f'.repeat(64) };
    const result = await verifyReceipts([tampered as never], { keys: setup.keys.verifier });

    expect(result.ok).toBe(false);
  });
});

/** A claim of `sync` whose owner died: IN_FLIGHT with its lease passed. */
async function crashedClaim(
  ledger: ReturnType<typeof newLedger>,
  clock: ReturnType<typeof createManualClock>,
): Promise<TransitionRecord> {
  const probe = ledger.tool({ name: 'sync', sideEffectClass: 'idempotent_mutate' }, async () => {
    const [record] = (await ledger.list()).records;
    // Write the claim as a dead owner would leave it: nothing after the claim lands.
    throw Object.assign(new Error('crash'), { record });
  });
  const error = (await rejectionOf(probe({}, { toolCallId: 'c1' }))) as { record: TransitionRecord };
  const claim = error.record;
  // Put the crashed claim back as it was before its failure write, then let its lease pass.
  const current = (await ledger.get(claim.key)) as TransitionRecord;
  await ledger.storage.update(claim.key, current.version, { ...claim, version: current.version + 1 });
  clock.advance(1_000);
  return claim;
}

function emailToolOn(ledger: ReturnType<typeof newLedger>) {
  const plan: ('ok' | 'before' | 'inside')[] = [];
  const send = ledger.tool({ name: 'send_email', sideEffectClass: 'email' }, async (args: { to: string }) => {
    const step = plan.shift() ?? 'ok';
    if (step === 'before') throw new Error('address rejected');
    return sideEffect(() => {
      if (step === 'inside') throw new Error('SMTP timeout');
      return { to: args.to };
    });
  });
  return { send, plan };
}
