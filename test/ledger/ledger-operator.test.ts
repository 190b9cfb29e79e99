import { describe, expect, it } from 'vitest';
import {
  createManualClock,
  GuardError,
  InvalidArgumentError,
  LedgerAlreadyResolvedError,
  LedgerFencedError,
  LedgerHardBlockError,
  LedgerReleaseRefusedError,
  type ReleaseInput,
  sideEffect,
} from '../../src/index.js';
import { deferred, newLedger, onlyRecord, rejectionOf, until } from './ledger-helpers.js';

const notExecuted: ReleaseInput = {
  verified: 'not_executed',
  by: 'ops@example.com',
  reason: 'checked the provider dashboard',
};

/** An email tool whose body does what the queue says (default: succeed), counting runs and sends. */
function emailTool(options: Parameters<typeof newLedger>[0] = {}) {
  const ledger = newLedger(options);
  const plan: ('ok' | 'inside' | 'after')[] = [];
  const state = { runs: 0, sent: 0 };
  const send = ledger.tool({ name: 'send_email', sideEffectClass: 'email' }, async (args: { to: string }) => {
    state.runs++;
    const step = plan.shift() ?? 'ok';
    const id = await sideEffect(() => {
      if (step === 'inside') throw new Error('SMTP timeout');
      state.sent++;
      return `msg_${state.sent}`;
    });
    if (step === 'after') throw new Error('could not parse the SMTP reply');
    return { to: args.to, id };
  });
  return { ledger, plan, state, send };
}

async function blockedEmail() {
  const setup = emailTool();
  setup.plan.push('inside');
  await expect(setup.send({ to: 'a@x' }, { toolCallId: 'c' })).rejects.toThrow('SMTP timeout');
  const error = await rejectionOf(setup.send({ to: 'a@x' }, { toolCallId: 'c' }));
  expect(error).toBeInstanceOf(LedgerHardBlockError);
  return { ...setup, key: (error as LedgerHardBlockError).record.key };
}

describe('release(verified: not_executed)', () => {
  it('lets a hard-blocked tool run exactly once more', async () => {
    const { ledger, state, send, key } = await blockedEmail();

    const released = await ledger.release(key, notExecuted);
    const result = await send({ to: 'a@x' }, { toolCallId: 'c' });
    const again = await send({ to: 'a@x' }, { toolCallId: 'c' });

    expect(released.operatorResolution).toMatchObject({ ...notExecuted, consumedAt: null, previousOutcome: 'UNKNOWN' });
    expect(result).toEqual({ to: 'a@x', id: 'msg_1' });
    expect(again).toEqual(result);
    expect(state.runs).toBe(2);
    const record = await ledger.get(key);
    expect(record).toMatchObject({ outcome: 'COMPLETED', attempts: 2, fence: 2 });
    expect(record?.operatorResolution?.consumedAt).toEqual(expect.any(Number));
  });

  it('is one-shot: a second failure after the effect blocks again', async () => {
    const { ledger, plan, state, send, key } = await blockedEmail();
    await ledger.release(key, notExecuted);
    plan.push('after');

    await expect(send({ to: 'a@x' }, { toolCallId: 'c' })).rejects.toThrow('could not parse');
    const error = await rejectionOf(send({ to: 'a@x' }, { toolCallId: 'c' }));

    expect(error).toBeInstanceOf(LedgerHardBlockError);
    expect((error as LedgerHardBlockError).record.outcome).toBe('FAILED_AFTER_EFFECT');
    expect(state.runs).toBe(2);
  });

  it('a second release while one is pending is refused', async () => {
    const { ledger, key } = await blockedEmail();
    await ledger.release(key, notExecuted);

    const error = await rejectionOf(ledger.release(key, notExecuted));

    expect(error).toBeInstanceOf(LedgerReleaseRefusedError);
    expect((error as Error).message).toContain('pending');
  });

  it('may be given again once the earlier release was consumed', async () => {
    const { ledger, plan, state, send, key } = await blockedEmail();
    await ledger.release(key, notExecuted);
    plan.push('inside');
    await expect(send({ to: 'a@x' }, { toolCallId: 'c' })).rejects.toThrow('SMTP timeout');

    await ledger.release(key, notExecuted);
    await send({ to: 'a@x' }, { toolCallId: 'c' });

    expect(state.runs).toBe(3);
    expect((await ledger.get(key))?.outcome).toBe('COMPLETED');
  });

  it('is refused while a lease is held', async () => {
    const ledger = newLedger();
    const hold = deferred();
    let started = false;
    const send = ledger.tool({ name: 'send_email', sideEffectClass: 'email' }, async () => {
      started = true;
      await hold.promise;
      return 'sent';
    });
    const running = send({ to: 'a@x' }, { toolCallId: 'c' });
    await until(() => started);
    const { key } = await onlyRecord(ledger);

    const error = await rejectionOf(ledger.release(key, notExecuted));
    hold.resolve();

    expect(error).toBeInstanceOf(LedgerReleaseRefusedError);
    expect((error as LedgerReleaseRefusedError).record?.outcome).toBe('IN_FLIGHT');
    await expect(running).resolves.toBe('sent');
  });

  it('is refused on a COMPLETED transition', async () => {
    const { ledger, send } = emailTool();
    await send({ to: 'a@x' }, { toolCallId: 'c' });
    const { key } = await onlyRecord(ledger);

    await expect(ledger.release(key, notExecuted)).rejects.toBeInstanceOf(LedgerAlreadyResolvedError);
    await expect(ledger.release(key, { ...notExecuted, verified: 'completed' })).rejects.toBeInstanceOf(
      LedgerAlreadyResolvedError,
    );
  });

  it('is refused for an unknown key and without an audit trail', async () => {
    const { ledger, key } = await blockedEmail();

    await expect(ledger.release('0'.repeat(64), notExecuted)).rejects.toBeInstanceOf(LedgerReleaseRefusedError);
    await expect(ledger.release(key, { ...notExecuted, by: ' ' })).rejects.toBeInstanceOf(GuardError);
    await expect(ledger.release(key, { ...notExecuted, reason: '' })).rejects.toBeInstanceOf(GuardError);
    expect((await ledger.get(key))?.operatorResolution).toBeNull();
  });

  it('refuses bad input with InvalidArgumentError naming the argument, before reading the store', async () => {
    const { ledger, key } = await blockedEmail();
    const refusals: [unknown, string][] = [
      [{ ...notExecuted, by: ' ' }, 'by'],
      [{ ...notExecuted, reason: 42 }, 'reason'],
      [{ ...notExecuted, verified: 'maybe' }, 'verified'],
      // A call that did not execute has no result: one given with `not_executed` is refused, not dropped.
      [{ ...notExecuted, result: { charged: false } }, 'result'],
      [null, 'input'],
    ];
    for (const [input, argument] of refusals) {
      const error = await rejectionOf(ledger.release(key, input as ReleaseInput));
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect(error).toMatchObject({ code: 'invalid_argument', fn: 'release', argument });
    }
    const marks: [unknown, unknown, string][] = [
      [key, { by: 'ops', reason: 'gone', overrideHeartbeat: 'yes' }, 'overrideHeartbeat'],
      [key, { by: '', reason: 'gone' }, 'by'],
      [{ owner: ' ' }, { by: 'ops', reason: 'gone' }, 'target.owner'],
      [{ key: '' }, { by: 'ops', reason: 'gone' }, 'target'],
    ];
    for (const [target, input, argument] of marks) {
      const error = await rejectionOf(ledger.markWorkerDead(target as string, input as { by: string; reason: string }));
      expect(error).toMatchObject({ code: 'invalid_argument', fn: 'markWorkerDead', argument });
    }
    expect((await ledger.get(key))?.operatorResolution).toBeNull();
    // The same release without the result goes through.
    expect((await ledger.release(key, notExecuted)).operatorResolution?.verified).toBe('not_executed');
  });

  it('issued for an abandoned attempt, it is not spent on a second effect when that attempt wakes and executes', async () => {
    const clock = createManualClock(10_000);
    const ledger = newLedger({ clock, leaseTtlMs: 1_000, leaseRenewIntervalMs: 1e9 });
    const wake = deferred();
    let sent = 0;
    let calls = 0;
    const send = ledger.tool({ name: 'send_email', sideEffectClass: 'email' }, async () => {
      calls++;
      if (calls === 1) await wake.promise; // the first worker stalls before its effect
      return sideEffect(() => {
        sent++;
        if (calls === 1) throw new Error('SMTP timeout after sending');
        return 'sent';
      });
    });
    const stalled = send({ to: 'a@x' }, { toolCallId: 'c' });
    await until(() => calls === 1);
    // Past the lease and past twice the lease: the heartbeat says the worker is presumed dead.
    clock.advance(2_000);
    const { key } = await onlyRecord(ledger);

    // The operator sees an abandoned attempt that never reached its boundary.
    await ledger.release(key, notExecuted);
    // ...but the worker was only paused: it wakes and sends.
    wake.resolve();
    await Promise.allSettled([stalled]);
    // The redispatch may run (if the stalled worker was fenced) or hard-block; it must not send again.
    await Promise.allSettled([send({ to: 'a@x' }, { toolCallId: 'c' })]);

    expect(sent).toBe(1);
  });
});

describe('release(verified: not_executed) and later attempts', () => {
  it('a release not needed by the retry that followed is not spent on that retry’s own failure', async () => {
    const ledger = newLedger();
    const plan = ['before', 'after', 'ok'];
    let charges = 0;
    const pay = ledger.tool(
      { name: 'send_payment', sideEffectClass: 'keyed_mutate', providerIdempotencyKeyParam: 'idempotencyKey' },
      async (_args: { amount: number; idempotencyKey: string }) => {
        const step = plan.shift();
        if (step === 'before') throw new Error('gateway rejected the request');
        await sideEffect(() => {
          charges++;
        });
        if (step === 'after') throw new Error('could not parse the gateway reply');
        return 'paid';
      },
    );
    const call = () => pay({ amount: 100, idempotencyKey: 'k1' }, { toolCallId: 'c' });
    await expect(call()).rejects.toThrow('gateway rejected');
    const { key } = await onlyRecord(ledger);

    // The operator vouches for attempt 1 (it failed before the gateway) ...
    await ledger.release(key, notExecuted);
    // ... but the same-key retry is allowed anyway, charges, and fails after the effect.
    await expect(call()).rejects.toThrow('could not parse');
    await Promise.allSettled([call()]);

    expect(charges).toBe(1);
  });
});

describe('release(verified: completed)', () => {
  it('makes the next call return the given result without running', async () => {
    const { ledger, state, send, key } = await blockedEmail();

    const released = await ledger.release(key, {
      verified: 'completed',
      result: { id: 'msg_manual' },
      by: 'ops',
      reason: 'seen in outbox',
    });
    const result = await send({ to: 'a@x' }, { toolCallId: 'c' });

    expect(result).toEqual({ id: 'msg_manual' });
    expect(state.runs).toBe(1);
    expect(released).toMatchObject({ outcome: 'COMPLETED', boundary: 'crossed', result: { id: 'msg_manual' } });
    expect(released.operatorResolution).toMatchObject({ verified: 'completed', by: 'ops', previousOutcome: 'UNKNOWN' });
  });
});

describe('markWorkerDead', () => {
  function heldTool(sideEffectClass: 'idempotent_mutate' | 'non_idempotent_mutate') {
    const clock = createManualClock(5_000);
    const ledger = newLedger({ clock });
    const hold = deferred();
    const state = { runs: 0 };
    const sync = ledger.tool({ name: 'sync', sideEffectClass }, async () => {
      state.runs++;
      if (state.runs === 1) await hold.promise;
      return `run ${state.runs}`;
    });
    return { ledger, hold, state, sync };
  }

  it('expires the lease so a safe tool is reclaimed', async () => {
    const { ledger, hold, state, sync } = heldTool('idempotent_mutate');
    const first = sync({}, { toolCallId: 'c' });
    await until(() => state.runs === 1);
    const { key } = await onlyRecord(ledger);

    const dead = await ledger.markWorkerDead(key, { by: 'ops', reason: 'pod evicted', overrideHeartbeat: true });
    const second = await sync({}, { toolCallId: 'c' });
    hold.resolve();

    expect(dead.leaseUntil).toBe(5_000);
    expect(dead.error?.name).toBe('WorkerDead');
    expect(second).toBe('run 2');
    expect(state.runs).toBe(2);
    await expect(first).rejects.toBeInstanceOf(LedgerFencedError);
    // Marking fences the dead owner (fence 2); the takeover is fence 3.
    expect(await ledger.get(key)).toMatchObject({ outcome: 'COMPLETED', result: 'run 2', fence: 3 });
  });

  it('expires the lease so an unsafe tool hard-blocks', async () => {
    const { ledger, hold, state, sync } = heldTool('non_idempotent_mutate');
    const first = sync({}, { toolCallId: 'c' });
    await until(() => state.runs === 1);
    const { key } = await onlyRecord(ledger);

    await ledger.markWorkerDead(key, { by: 'ops', reason: 'pod evicted', overrideHeartbeat: true });
    const error = await rejectionOf(sync({}, { toolCallId: 'c' }));
    hold.resolve();
    await Promise.allSettled([first]);

    expect(error).toBeInstanceOf(LedgerHardBlockError);
    expect(state.runs).toBe(1);
  });

  it('is refused for a transition that is not IN_FLIGHT, and for an unknown key', async () => {
    const { ledger, send } = emailTool();
    await send({ to: 'a@x' }, { toolCallId: 'c' });
    const { key } = await onlyRecord(ledger);

    await expect(ledger.markWorkerDead(key, { by: 'ops', reason: 'x' })).rejects.toMatchObject({
      code: 'ledger_not_in_flight',
    });
    await expect(ledger.markWorkerDead('0'.repeat(64), { by: 'ops', reason: 'x' })).rejects.toMatchObject({
      code: 'ledger_not_found',
    });
  });
});
