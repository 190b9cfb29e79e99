/**
 * A receipt for every terminal outcome, every refusal and every operator action, chained and signed.
 */
import { describe, expect, it } from 'vitest';
import { fingerprint } from '../../../src/core/fingerprint.js';
import { createManualClock, LedgerHardBlockError, recordExternalOperation, sideEffect } from '../../../src/index.js';
import { createReceiptWriter } from '../../../src/ledger/receipts/receipt-writer.js';
import { type Receipt, receiptIdOf } from '../../../src/storage/receipt.js';
import { onlyRecord, rejectionOf } from '../ledger-helpers.js';
import { emailTool, flakySink, receiptLedger } from './ledger-fixture.js';

describe('receipts of terminal outcomes', () => {
  it('COMPLETED: one signed receipt with hashes, never raw arguments; the record points at it', async () => {
    const { ledger, chain } = receiptLedger();
    const { send } = emailTool(ledger);

    const result = await send({ to: 'secret-recipient@example.com' }, { toolCallId: 'c1' });

    const [receipt] = await chain();
    const record = await onlyRecord(ledger);
    expect(receipt).toMatchObject({
      seq: 1,
      prev: null,
      keyId: 'k1',
      agentId: 'agent',
      action: 'send_email',
      actionKind: 'tool',
      transitionKey: record.key,
      outcome: 'COMPLETED',
      inputsHash: record.argsFingerprint,
      outputsHash: fingerprint(result),
      receiptId: receiptIdOf(record.key, record.version - 1, 'outcome'),
      timestamp: new Date(record.completedAt ?? 0).toISOString(),
    });
    expect(receipt?.error).toBeUndefined();
    expect(JSON.stringify(receipt)).not.toContain('secret-recipient');
    expect(record.receiptRef).toBe(receipt?.receiptId);
  });

  it.for([
    ['before', 'FAILED_BEFORE_EFFECT', 'address rejected'],
    ['inside', 'UNKNOWN', 'SMTP timeout'],
    ['after', 'FAILED_AFTER_EFFECT', 'could not parse the SMTP reply'],
  ] as const)('a body failing %s its side effect: a %s receipt with the error', async ([step, outcome, message]) => {
    const { ledger, chain } = receiptLedger();
    const { plan, send } = emailTool(ledger);
    plan.push(step);

    await expect(send({ to: 'a@x' }, { toolCallId: 'c1' })).rejects.toThrow(message);

    const receipts = await chain();
    expect(receipts).toHaveLength(1);
    expect(receipts[0]).toMatchObject({ outcome, outputsHash: null, error: { name: 'Error', message } });
    expect((await onlyRecord(ledger)).receiptRef).toBe(receipts[0]?.receiptId);
  });

  it('a task: actionKind `task`', async () => {
    const { ledger, chain } = receiptLedger();
    const task = ledger.task({ name: 'process_invoice', idFrom: ['invoiceId'] }, async () => 'done');

    await task({ invoiceId: 'inv_1' });

    expect(await chain()).toMatchObject([{ actionKind: 'task', action: 'process_invoice', outcome: 'COMPLETED' }]);
  });

  it('a reconciled completion: a COMPLETED receipt after the UNKNOWN one', async () => {
    const { ledger, chain } = receiptLedger({ reconciler: () => ({ status: 'COMPLETED', result: { id: 'ch_1' } }) });
    let runs = 0;
    const charge = ledger.tool({ name: 'charge', sideEffectClass: 'payment' }, async () => {
      runs++;
      await recordExternalOperation('op_1');
      return sideEffect(() => {
        throw new Error('response lost');
      });
    });
    await expect(charge({ amount: 1 }, { toolCallId: 'c' })).rejects.toThrow('response lost');

    expect(await charge({ amount: 1 }, { toolCallId: 'c' })).toEqual({ id: 'ch_1' });

    expect(runs).toBe(1);
    expect((await chain()).map((receipt) => [receipt.seq, receipt.outcome])).toEqual([
      [1, 'UNKNOWN'],
      [2, 'COMPLETED'],
    ]);
    expect((await chain())[1]?.outputsHash).toBe(fingerprint({ id: 'ch_1' }));
  });
});

describe('receipts of refusals and operator actions', () => {
  async function unknownEmail() {
    const fixture = receiptLedger();
    const tool = emailTool(fixture.ledger);
    tool.plan.push('inside');
    await expect(tool.send({ to: 'a@x' }, { toolCallId: 'c' })).rejects.toThrow('SMTP timeout');
    return { ...fixture, ...tool };
  }

  it('BLOCKED: a refused redispatch gets a receipt; refusing the same record again adds none', async () => {
    const { send, chain } = await unknownEmail();

    const error = await rejectionOf(send({ to: 'a@x' }, { toolCallId: 'c' }));
    await rejectionOf(send({ to: 'a@x' }, { toolCallId: 'c' }));

    expect(error).toBeInstanceOf(LedgerHardBlockError);
    const receipts = await chain();
    expect(receipts.map((receipt) => receipt.outcome)).toEqual(['UNKNOWN', 'BLOCKED']);
    expect(receipts[1]).toMatchObject({
      actionKind: 'tool',
      receiptId: receiptIdOf(
        (error as LedgerHardBlockError).record.key,
        (error as LedgerHardBlockError).record.version,
        'blocked',
      ),
      error: { name: 'LedgerHardBlockError', code: 'ledger_hard_block' },
    });
  });

  it('release `not_executed`: a release receipt naming the operator, then the rerun’s COMPLETED', async () => {
    const { ledger, send, chain, state } = await unknownEmail();
    const { key } = await onlyRecord(ledger);

    const released = await ledger.release(key, {
      verified: 'not_executed',
      by: 'ops@example.com',
      reason: 'no email sent',
    });
    await send({ to: 'a@x' }, { toolCallId: 'c' });

    const receipts = await chain();
    expect(receipts.map((receipt) => [receipt.actionKind, receipt.outcome])).toEqual([
      ['tool', 'UNKNOWN'],
      ['release', 'NOT_EXECUTED'],
      ['tool', 'COMPLETED'],
    ]);
    expect(receipts[1]).toMatchObject({
      operator: { by: 'ops@example.com', reason: 'no email sent' },
      outputsHash: null,
    });
    expect(released.receiptRef).toBe(receipts[1]?.receiptId);
    expect(state.runs).toBe(2);
  });

  it('release `completed`: a release receipt with the hash of the stored result', async () => {
    const { ledger, chain } = await unknownEmail();
    const { key } = await onlyRecord(ledger);

    const released = await ledger.release(key, {
      verified: 'completed',
      result: { id: 'msg_9' },
      by: 'ops',
      reason: 'sent',
    });

    const receipts = await chain();
    expect(receipts[1]).toMatchObject({
      actionKind: 'release',
      outcome: 'COMPLETED',
      outputsHash: fingerprint({ id: 'msg_9' }),
      operator: { by: 'ops', reason: 'sent' },
    });
    expect((await ledger.get(key))?.receiptRef).toBe(receipts[1]?.receiptId);
    expect(released.receiptRef).toBe(receipts[1]?.receiptId);
  });

  it('markWorkerDead: an EXPIRED receipt whose error names who and why', async () => {
    const clock = createManualClock(1_000);
    const { ledger, chain } = receiptLedger({ clock, leaseTtlMs: 60_000 });
    let release = (): void => undefined;
    const hang = ledger.tool(
      { name: 'hang', sideEffectClass: 'email' },
      () =>
        new Promise<void>((resolve) => {
          release = resolve;
        }),
    );
    const pending = hang({}, { toolCallId: 'c' });
    await new Promise((resolve) => setTimeout(resolve, 10));
    const { key } = await onlyRecord(ledger);

    await ledger.markWorkerDead(key, { by: 'ops', reason: 'pod evicted', overrideHeartbeat: true });

    const receipts = await chain();
    expect(receipts).toMatchObject([
      {
        actionKind: 'mark_worker_dead',
        outcome: 'EXPIRED',
        error: { name: 'WorkerDead', message: expect.stringContaining('marked dead by ops: pod evicted') },
      },
    ]);
    release();
    await pending.catch(() => undefined);
  });

  it('every event of a transition’s life sits on one chain that verifies', async () => {
    const { ledger, send, chain } = await unknownEmail();
    await rejectionOf(send({ to: 'a@x' }, { toolCallId: 'c' }));
    const { key } = await onlyRecord(ledger);
    await ledger.release(key, { verified: 'not_executed', by: 'ops', reason: 'checked' });
    await send({ to: 'a@x' }, { toolCallId: 'c' });
    await send({ to: 'b@x' }, { toolCallId: 'd' });

    const receipts = await chain();

    expect(receipts.map((receipt: Receipt) => `${receipt.seq}:${receipt.outcome}`)).toEqual([
      '1:UNKNOWN',
      '2:BLOCKED',
      '3:NOT_EXECUTED',
      '4:COMPLETED',
      '5:COMPLETED',
    ]);
  });
});

describe('receipts never change a call', () => {
  it('a sink that fails: the result is returned, the failure is logged, the record keeps a pending marker', async () => {
    const sink = flakySink();
    sink.failing = true;
    const { ledger, logger } = receiptLedger({ sink });
    const { send } = emailTool(ledger);

    const result = await send({ to: 'a@x' }, { toolCallId: 'c' });

    expect(result).toEqual({ to: 'a@x', id: 'msg_1' });
    expect(logger.entries).toContainEqual({
      level: 'error',
      message: 'Receipt could not be written; `sweepReceipts` will retry it',
    });
    const record = await onlyRecord(ledger);
    expect(record.receiptRef).toBe(`pending:outcome:${record.version}`);
  });

  it('a sink that fails: the tool’s own error is what the caller gets', async () => {
    const sink = flakySink();
    sink.failing = true;
    const { ledger } = receiptLedger({ sink });
    const { plan, send } = emailTool(ledger);
    plan.push('inside');

    await expect(send({ to: 'a@x' }, { toolCallId: 'c' })).rejects.toThrow('SMTP timeout');
  });

  it('a receipt that cannot be built (a time with no ISO form) is logged; the call is unchanged', async () => {
    const clock = { now: () => 9e15, sleep: createManualClock().sleep };
    const { ledger, logger, sink } = receiptLedger({ clock });

    expect(await emailTool(ledger).send({ to: 'a@x' }, { toolCallId: 'c' })).toEqual({ to: 'a@x', id: 'msg_1' });

    expect(logger.entries.map((entry) => entry.message)).toContain(
      'Receipt could not be written; `sweepReceipts` will retry it',
    );
    expect(sink.receipts()).toEqual([]);
  });

  it('onEvent sees the durable record first, then the receipt; a throwing hook is logged and ignored', async () => {
    const { ledger, events, logger } = receiptLedger();
    const throwing = receiptLedger({
      onEvent: () => {
        throw new Error('hook bug');
      },
    });
    const { send } = emailTool(ledger);

    await send({ to: 'a@x' }, { toolCallId: 'c' });
    await emailTool(throwing.ledger).send({ to: 'a@x' }, { toolCallId: 'c' });

    expect(events.map((event) => event.type)).toEqual(['transition_recorded', 'receipt_written']);
    expect(events[0]).toMatchObject({
      record: { outcome: 'COMPLETED', receiptRef: expect.stringMatching(/^pending:outcome:/) },
    });
    expect(logger.entries).toEqual([]);
    expect(throwing.logger.entries.filter((entry) => entry.message === 'The onEvent hook threw')).toHaveLength(2);
    expect(await throwing.chain()).toHaveLength(1);
  });

  it('without receipts, records keep a null receiptRef (as before)', async () => {
    const { newLedger } = await import('../ledger-helpers.js');
    const ledger = newLedger();
    const { plan, send } = emailTool(ledger);
    plan.push('before');

    await rejectionOf(send({ to: 'a@x' }, { toolCallId: 'c' }));

    expect((await onlyRecord(ledger)).receiptRef).toBeNull();
    await expect(ledger.sweepReceipts()).rejects.toThrow('sweepReceipts needs a ledger created with `receipts`');
  });

  it('two ledgers sharing one writer (tools and tasks) write one chain; close() closes the sink', async () => {
    const { keys, ...fixture } = receiptLedger();
    const writer = createReceiptWriter({ sink: fixture.sink, signer: keys.signer });
    const tools = receiptLedger({ receipts: writer, sink: fixture.sink });
    const tasks = receiptLedger({ receipts: writer, sink: fixture.sink });

    await emailTool(tools.ledger).send({ to: 'a@x' }, { toolCallId: 'c' });
    await tasks.ledger.task({ name: 'job' }, async () => 1)({ n: 1 });
    await tools.ledger.close();

    expect(fixture.sink.receipts().map((receipt) => receipt.seq)).toEqual([1, 2]);
    await expect(fixture.sink.last()).rejects.toThrow('closed');
  });
});
