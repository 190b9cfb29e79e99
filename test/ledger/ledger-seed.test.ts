import { describe, expect, it } from 'vitest';
import {
  CanonicalJsonError,
  LedgerHardBlockError,
  LedgerSoftBlockError,
  markCrossed,
  markMaybeCrossed,
  sideEffect,
} from '../../src/index.js';
import { deferred, instrumentedStorage, newLedger, onlyRecord, rejectionOf, until } from './ledger-helpers.js';

describe('redispatch', () => {
  it('a redispatch while the first call still runs polls, returns the same result, and the body runs once', async () => {
    const storage = instrumentedStorage();
    const ledger = newLedger({ storage, pollIntervalMs: 2, pollMaxIntervalMs: 5 });
    const release = deferred();
    let runs = 0;
    const report = ledger.tool(
      { name: 'build_report', sideEffectClass: 'idempotent_mutate' },
      async (args: { id: string }) => {
        runs++;
        await release.promise;
        return { id: args.id, pages: 3 };
      },
    );
    const first = report({ id: 'r1' }, { toolCallId: 'call_1' });
    await until(() => runs === 1, 'the first body to start');
    const readsBefore = storage.calls.get;

    const second = report({ id: 'r1' }, { toolCallId: 'call_1' });
    await until(() => storage.calls.get >= readsBefore + 2, 'the second call to poll');
    release.resolve();
    const [a, b] = await Promise.all([first, second]);

    expect(a).toEqual({ id: 'r1', pages: 3 });
    expect(b).toEqual(a);
    expect(runs).toBe(1);
  });

  it('a redispatch of a COMPLETED call returns the stored result in its JSON form without running', async () => {
    const ledger = newLedger();
    let runs = 0;
    const stamp = ledger.tool({ name: 'stamp', sideEffectClass: 'non_idempotent_mutate' }, () => {
      runs++;
      return { at: new Date(0), skipped: undefined, n: 1 };
    });

    const first = await stamp({ doc: 'd1' }, { toolCallId: 'call_1' });
    const again = await stamp({ doc: 'd1' }, { toolCallId: 'call_1' });

    expect(first.at).toBeInstanceOf(Date);
    expect(again).toStrictEqual({ at: '1970-01-01T00:00:00.000Z', n: 1 });
    expect(runs).toBe(1);
    expect((await onlyRecord(ledger)).outcome).toBe('COMPLETED');
  });

  it('a redispatch of a call that returned nothing returns undefined without running', async () => {
    const ledger = newLedger();
    let runs = 0;
    const fire = ledger.tool({ name: 'fire', sideEffectClass: 'irreversible' }, () => {
      runs++;
    });

    await fire({}, { toolCallId: 'c' });

    await expect(fire({}, { toolCallId: 'c' })).resolves.toBeUndefined();
    expect(runs).toBe(1);
  });
});

describe('reads', () => {
  function flakyRead(deferReadOnlyUnknown: boolean) {
    const ledger = newLedger({ deferReadOnlyUnknown });
    const state = { runs: 0 };
    const lookup = ledger.tool({ name: 'lookup_order', sideEffectClass: 'read' }, (_args: { id: string }) => {
      state.runs++;
      return sideEffect(() => {
        if (state.runs === 1) throw new Error('socket hang up');
        return { status: 'shipped' };
      });
    });
    return { ledger, state, lookup };
  }

  it('a read retries after UNKNOWN', async () => {
    const { ledger, state, lookup } = flakyRead(false);
    await expect(lookup({ id: 'o1' }, { toolCallId: 'c' })).rejects.toThrow('socket hang up');
    const unknown = await onlyRecord(ledger);

    const result = await lookup({ id: 'o1' }, { toolCallId: 'c' });

    expect(unknown.outcome).toBe('UNKNOWN');
    expect(result).toEqual({ status: 'shipped' });
    expect(state.runs).toBe(2);
    expect((await onlyRecord(ledger)).outcome).toBe('COMPLETED');
  });

  it('with deferReadOnlyUnknown a read that meets UNKNOWN raises LedgerSoftBlockError', async () => {
    const { state, lookup } = flakyRead(true);
    await expect(lookup({ id: 'o1' }, { toolCallId: 'c' })).rejects.toThrow('socket hang up');

    const error = await rejectionOf(lookup({ id: 'o1' }, { toolCallId: 'c' }));

    expect(error).toBeInstanceOf(LedgerSoftBlockError);
    expect((error as LedgerSoftBlockError).record.outcome).toBe('UNKNOWN');
    expect((error as LedgerSoftBlockError).llmMessage).toContain('lookup_order');
    expect(state.runs).toBe(1);
  });
});

describe('keyed_mutate and the provider idempotency key', () => {
  function payment() {
    const ledger = newLedger();
    const state = { runs: 0 };
    const pay = ledger.tool(
      { name: 'send_payment', sideEffectClass: 'keyed_mutate', providerIdempotencyKeyParam: 'idempotencyKey' },
      async (args: { amount: number; idempotencyKey: string }) => {
        state.runs++;
        if (state.runs === 1) throw new Error('gateway rejected the request');
        return sideEffect(() => ({ charged: args.amount, key: args.idempotencyKey }));
      },
    );
    return { ledger, state, pay };
  }

  it('a retry that swaps the key lands on the same transition and hard-blocks', async () => {
    const { ledger, state, pay } = payment();
    await expect(pay({ amount: 100, idempotencyKey: 'k1' }, { toolCallId: 'call_1' })).rejects.toThrow(
      'gateway rejected',
    );
    const failed = await onlyRecord(ledger);

    const error = await rejectionOf(pay({ amount: 100, idempotencyKey: 'k2' }, { toolCallId: 'call_1' }));

    expect(failed).toMatchObject({ outcome: 'FAILED_BEFORE_EFFECT', providerIdempotencyKey: 'k1' });
    expect(error).toBeInstanceOf(LedgerHardBlockError);
    const blocked = error as LedgerHardBlockError;
    expect(blocked.record.key).toBe(failed.key);
    for (const part of [
      '`send_payment`',
      `\`${failed.key}\``,
      '`FAILED_BEFORE_EFFECT`',
      '`not_crossed`',
      'external ref none',
    ]) {
      expect(blocked.message).toContain(part);
    }
    expect(blocked.llmMessage).toContain('NOT executed');
    expect(state.runs).toBe(1);
  });

  it('a retry with the same key runs again', async () => {
    const { ledger, state, pay } = payment();
    await expect(pay({ amount: 100, idempotencyKey: 'k1' }, { toolCallId: 'call_1' })).rejects.toThrow();

    const result = await pay({ amount: 100, idempotencyKey: 'k1' }, { toolCallId: 'call_1' });

    expect(result).toEqual({ charged: 100, key: 'k1' });
    expect(state.runs).toBe(2);
    expect(await onlyRecord(ledger)).toMatchObject({ outcome: 'COMPLETED', boundary: 'crossed', attempts: 2 });
  });
});

describe('identity drift: one tool call id, different arguments', () => {
  function emailer(
    options: Parameters<typeof newLedger>[0] = {},
    spec: { onArgsDrift?: 'soft' | 'hard' | 'off' } = {},
  ) {
    const ledger = newLedger(options);
    const sent: string[] = [];
    const send = ledger.tool({ name: 'send_email', sideEffectClass: 'email', ...spec }, (args: { to: string }) => {
      sent.push(args.to);
      return `sent to ${args.to}`;
    });
    return { ledger, sent, send };
  }

  it('soft (default): LedgerIdentityConflictError with a message for the model; nothing runs', async () => {
    const { sent, send } = emailer();
    await send({ to: 'a@x' }, { toolCallId: 'c1' });

    const error = await rejectionOf(send({ to: 'b@x' }, { toolCallId: 'c1' }));

    expect(error).toMatchObject({
      name: 'LedgerIdentityConflictError',
      code: 'ledger_identity_conflict',
      ticket: 'c1',
    });
    expect((error as { llmMessage: string }).llmMessage).toContain('`c1`');
    expect(sent).toEqual(['a@x']);
  });

  it('hard: LedgerHardBlockError; nothing runs', async () => {
    const { sent, send } = emailer({ onArgsDrift: 'hard' });
    await send({ to: 'a@x' }, { toolCallId: 'c1' });

    await expect(send({ to: 'b@x' }, { toolCallId: 'c1' })).rejects.toBeInstanceOf(LedgerHardBlockError);
    expect(sent).toEqual(['a@x']);
  });

  it('off: the call runs as its own transition', async () => {
    const { ledger, sent, send } = emailer({ onArgsDrift: 'off' });
    await send({ to: 'a@x' }, { toolCallId: 'c1' });

    await expect(send({ to: 'b@x' }, { toolCallId: 'c1' })).resolves.toBe('sent to b@x');
    expect(sent).toEqual(['a@x', 'b@x']);
    expect((await ledger.list()).records).toHaveLength(2);
  });

  it('a tool spec overrides the ledger default', async () => {
    const { sent, send } = emailer({ onArgsDrift: 'hard' }, { onArgsDrift: 'off' });
    await send({ to: 'a@x' }, { toolCallId: 'c1' });

    await send({ to: 'b@x' }, { toolCallId: 'c1' });

    expect(sent).toEqual(['a@x', 'b@x']);
  });

  it('the same id in another run scope is no conflict', async () => {
    const { sent, send } = emailer();
    await send({ to: 'a@x' }, { toolCallId: 'c1', scope: { threadId: 't', runId: 'r1' } });

    await send({ to: 'b@x' }, { toolCallId: 'c1', scope: { threadId: 't', runId: 'r2' } });

    expect(sent).toEqual(['a@x', 'b@x']);
  });
});

describe('failure classification by boundary', () => {
  class GatewayError extends Error {
    readonly code = 'gateway_down';
  }

  it.each([
    ['a throw before sideEffect', 'FAILED_BEFORE_EFFECT', 'not_crossed', 'before'],
    ['a throw inside sideEffect', 'UNKNOWN', 'maybe_crossed', 'inside'],
    ['a throw after sideEffect returned', 'FAILED_AFTER_EFFECT', 'crossed', 'after'],
    ['a throw after markMaybeCrossed', 'UNKNOWN', 'maybe_crossed', 'markMaybe'],
    ['a throw after markCrossed', 'FAILED_AFTER_EFFECT', 'crossed', 'markCrossed'],
  ])('%s → %s (%s), and the tool error is re-thrown unchanged', async (_label, outcome, boundary, where) => {
    const ledger = newLedger();
    const failure = new GatewayError('gateway down');
    const charge = ledger.tool({ name: 'charge', sideEffectClass: 'non_idempotent_mutate' }, async () => {
      if (where === 'before') throw failure;
      if (where === 'markMaybe') await markMaybeCrossed();
      if (where === 'markCrossed') await markCrossed();
      if (where === 'markMaybe' || where === 'markCrossed') throw failure;
      await sideEffect(() => {
        if (where === 'inside') throw failure;
      });
      throw failure;
    });

    const error = await rejectionOf(charge({ amount: 1 }, { toolCallId: 'c' }));
    const record = await onlyRecord(ledger);

    expect(error).toBe(failure);
    expect(record).toMatchObject({ outcome, boundary, owner: null, leaseUntil: null });
    expect(record.error).toEqual({ name: 'Error', message: 'gateway down', code: 'gateway_down' });
    expect(record.completedAt).not.toBeNull();
  });

  it('a non-Error throw is re-thrown as is and recorded', async () => {
    const ledger = newLedger();
    const odd = ledger.tool({ name: 'odd', sideEffectClass: 'idempotent_mutate' }, () => {
      throw 'plain string';
    });

    await expect(odd({})).rejects.toBe('plain string');
    expect((await onlyRecord(ledger)).error).toEqual({ name: 'NonError', message: 'plain string' });
  });
});

describe('arguments with no JSON form', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['a function', { callback: () => 1 }, '$.callback'],
    ['NaN', { amount: Number.NaN }, '$.amount'],
    ['a bigint', { amount: 10n }, '$.amount'],
    ['a Date', { when: new Date(0) }, '$.when'],
  ])('%s: CanonicalJsonError, the body never runs, nothing is stored', async (_label, args, path) => {
    const ledger = newLedger();
    let runs = 0;
    const charge = ledger.tool({ name: 'charge', sideEffectClass: 'payment' }, () => {
      runs++;
    });

    const error = await rejectionOf(charge(args, { toolCallId: 'c' }));

    expect(error).toBeInstanceOf(CanonicalJsonError);
    expect((error as CanonicalJsonError).path).toBe(path);
    expect(runs).toBe(0);
    expect((await ledger.list()).records).toHaveLength(0);
  });

  it('a provider idempotency key with no JSON form is refused too (it is stored on the record)', async () => {
    const ledger = newLedger();
    let runs = 0;
    const pay = ledger.tool(
      { name: 'send_payment', sideEffectClass: 'keyed_mutate', providerIdempotencyKeyParam: 'idempotencyKey' },
      () => {
        runs++;
      },
    );

    const error = await rejectionOf(pay({ amount: 1, idempotencyKey: () => 'k1' }, { toolCallId: 'c' }));

    expect(error).toBeInstanceOf(CanonicalJsonError);
    expect(runs).toBe(0);
  });
});
