/**
 * `onCallEvent`: every guarded call reports its steps, from its start to how it settled.
 */
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/core/clock.js';
import { type LedgerCallEvent, sideEffect } from '../../src/index.js';
import { collectingLogger, deferred, newLedger, until } from './ledger-helpers.js';

function recorder() {
  const events: LedgerCallEvent[] = [];
  const of = (id: number) =>
    events
      .filter((event) => event.call.id === id)
      .map((event) => (event.type === 'gate' ? `gate:${event.gate}` : event.type));
  return { events, of, onCallEvent: (event: LedgerCallEvent) => events.push(event) };
}

describe('onCallEvent', () => {
  it('reports a fresh call: started, claimed, recorded, settled with the completed record', async () => {
    const seen = recorder();
    const ledger = newLedger({ onCallEvent: seen.onCallEvent });
    const send = ledger.tool({ name: 'send', sideEffectClass: 'idempotent_mutate' }, async () => 'sent');
    await send({ to: 'a' }, { toolCallId: 'c1' });
    expect(seen.of(1)).toEqual(['call_started', 'claimed', 'recorded', 'call_settled']);
    const claimed = seen.events.find((event) => event.type === 'claimed');
    expect(claimed?.type === 'claimed' && claimed.via).toBe('fresh');
    const settled = seen.events.at(-1);
    expect(settled?.type).toBe('call_settled');
    if (settled?.type !== 'call_settled') return;
    expect(settled.ok).toBe(true);
    expect(settled.record?.outcome).toBe('COMPLETED');
    expect(settled.call).toMatchObject({ id: 1, tool: 'send', kind: 'tool', ticket: 'c1' });
  });

  it('reports each poll of a call that waits for another owner, then its RETURN', async () => {
    const seen = recorder();
    const clock = createManualClock(1_000);
    const ledger = newLedger({ onCallEvent: seen.onCallEvent, clock, pollIntervalMs: 10, leaseTtlMs: 60_000 });
    const gate = deferred<string>();
    const send = ledger.tool({ name: 'send', sideEffectClass: 'non_idempotent_mutate' }, () => gate.promise);
    const first = send({ to: 'a' }, { toolCallId: 'c1' });
    await until(() => seen.of(1).includes('claimed'), 'the first claim');
    const second = send({ to: 'a' }, { toolCallId: 'c1' });
    await until(() => seen.of(2).includes('gate:POLL'), 'the first poll');
    clock.advance(10);
    await until(() => seen.of(2).filter((step) => step === 'gate:POLL').length === 2, 'the second poll');
    gate.resolve('sent');
    await expect(first).resolves.toBe('sent');
    await expect(second).resolves.toBe('sent');
    expect(seen.of(2)).toEqual(['call_started', 'gate:POLL', 'gate:POLL', 'gate:RETURN', 'call_settled']);
  });

  it('reports a hard block with the refused record on the settled event', async () => {
    const seen = recorder();
    const ledger = newLedger({ onCallEvent: seen.onCallEvent });
    const pay = ledger.tool({ name: 'pay', sideEffectClass: 'non_idempotent_mutate' }, async () =>
      sideEffect(async () => {
        throw new Error('gateway timed out');
      }),
    );
    await expect(pay({ amount: 1 }, { toolCallId: 'p' })).rejects.toThrow('gateway timed out');
    await expect(pay({ amount: 1 }, { toolCallId: 'p' })).rejects.toMatchObject({ code: 'ledger_hard_block' });
    expect(seen.of(2)).toEqual(['call_started', 'gate:HARD_BLOCK', 'call_settled']);
    const settled = seen.events.at(-1);
    expect(settled?.type === 'call_settled' && !settled.ok && settled.record?.outcome).toBe('UNKNOWN');
  });

  it('reports a takeover, a consumed release, lease renewals and a fence', async () => {
    const seen = recorder();
    const clock = createManualClock(1_000);
    const renewing = newLedger({ onCallEvent: seen.onCallEvent, clock, leaseTtlMs: 300, leaseRenewIntervalMs: 100 });
    const held = deferred<string>();
    const long = renewing.tool({ name: 'long', sideEffectClass: 'idempotent_mutate' }, () => held.promise);
    const running = long({}, { toolCallId: 'l' });
    await until(() => seen.of(1).includes('claimed'), 'the claim');
    clock.advance(100);
    await until(() => seen.of(1).includes('lease_renewed'), 'a renewal');
    held.resolve('done');
    await expect(running).resolves.toBe('done');

    // Without renewal the owner's lease passes: a second caller takes over, the first is fenced.
    const ledger = newLedger({ onCallEvent: seen.onCallEvent, clock, leaseTtlMs: 300, leaseRenewIntervalMs: 0 });
    const gates = [deferred<string>(), deferred<string>()];
    let runs = 0;
    const task = ledger.tool({ name: 'sync', sideEffectClass: 'idempotent_mutate' }, () => {
      const gate = gates[runs++];
      return gate?.promise ?? 'done';
    });
    const first = task({ n: 1 }, { toolCallId: 't' });
    await until(() => seen.of(1).length > 0 && seen.events.some((e) => e.call.tool === 'sync'), 'the claim');
    const firstId = seen.events.find((event) => event.call.tool === 'sync')?.call.id as number;
    clock.advance(1_000);
    const second = task({ n: 1 }, { toolCallId: 't' });
    const secondId = firstId + 1;
    await until(() => seen.of(secondId).includes('claimed'), 'the takeover');
    const takeover = seen.events.find((event) => event.call.id === secondId && event.type === 'claimed');
    expect(takeover?.type === 'claimed' && takeover.via).toBe('takeover');
    gates[1]?.resolve('second');
    await expect(second).resolves.toBe('second');
    gates[0]?.resolve('first');
    await expect(first).rejects.toMatchObject({ code: 'ledger_fenced' });
    const firstSteps = seen.events.filter((e) => e.call.tool === 'sync' && e.call.id === firstId).map((e) => e.type);
    expect(firstSteps).toContain('fenced');
    expect(firstSteps.at(-1)).toBe('call_settled');

    // An operator's not_executed release on a hard-blocked call is consumed by the next call.
    const pay = ledger.tool({ name: 'pay', sideEffectClass: 'non_idempotent_mutate' }, async () =>
      sideEffect(async () => {
        throw new Error('timeout');
      }),
    );
    await expect(pay({ a: 1 }, { toolCallId: 'p' })).rejects.toThrow('timeout');
    const key = (await ledger.list({ tool: 'pay' })).records[0]?.key as string;
    await ledger.release(key, { verified: 'not_executed', by: 'ada', reason: 'no charge at the provider' });
    await expect(pay({ a: 1 }, { toolCallId: 'p' })).rejects.toThrow('timeout');
    const last = seen.events.filter((event) => event.call.key === key && event.type === 'claimed').at(-1);
    expect(last?.type === 'claimed' && last.via).toBe('release');
  });

  it('ignores a throwing hook (reported once per event) and builds no event without one', async () => {
    const logger = collectingLogger();
    const ledger = newLedger({
      logger,
      onCallEvent: () => {
        throw new Error('hook bug');
      },
    });
    const send = ledger.tool({ name: 'send', sideEffectClass: 'read' }, async () => 'ok');
    await expect(send({}, { toolCallId: 'c' })).resolves.toBe('ok');
    expect(logger.entries.filter((entry) => entry.message === 'The onCallEvent hook threw')).toHaveLength(4);
    expect(() => newLedger({ onCallEvent: 'no' as unknown as () => void })).toThrow('`onCallEvent` must be a function');
  });
});
