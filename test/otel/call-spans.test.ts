/**
 * One span per whole guarded call, through the ledger's `onCallEvent`: from the call's start,
 * through its polls or hard block, to how it settled.
 */
import * as api from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/core/clock.js';
import { createLedger, createMemoryStorage, loadConfig, sideEffect } from '../../src/index.js';
import { deferred, until } from '../ledger/ledger-helpers.js';
import { sdk, useContextManager } from './sdk.js';

useContextManager();

describe('hyphae/otel call spans', () => {
  it('gives a call that polls another owner one span from its start to its RETURN, with each poll as an event', async () => {
    const otel = sdk();
    const clock = createManualClock(Date.parse('2026-12-01T10:00:00Z'));
    const ledger = createLedger({
      storage: createMemoryStorage(),
      agentId: 'agent',
      policyVersion: '1',
      clock,
      pollIntervalMs: 10,
      onEvent: otel.telemetry.onLedgerEvent,
      onCallEvent: (event) => {
        if (event.type === 'gate') gates.push(event.gate);
        otel.telemetry.onCallEvent(event);
      },
    });
    const gates: string[] = [];
    const gate = deferred<string>();
    const send = ledger.tool({ name: 'send_email', sideEffectClass: 'non_idempotent_mutate' }, () => gate.promise);
    const owner = send({ to: 'a' }, { toolCallId: 'c1' });
    const waiter = send({ to: 'a' }, { toolCallId: 'c1' });
    await until(() => gates.includes('POLL'), 'the waiter to poll');
    clock.advance(10);
    await until(() => gates.filter((g) => g === 'POLL').length === 2, 'the second poll');
    gate.resolve('sent');
    await Promise.all([owner, waiter]);

    const spans = otel.exporter.getFinishedSpans();
    expect(spans.map((span) => span.name)).toEqual(['execute_tool send_email', 'execute_tool send_email']);
    const waited = spans.find((span) => span.attributes['hyphae.polls'] !== 0);
    const ran = spans.find((span) => span.attributes['hyphae.polls'] === 0);
    expect(waited?.attributes).toMatchObject({
      'hyphae.call.result': 'returned',
      'hyphae.outcome': 'COMPLETED',
      'gen_ai.tool.call.id': 'c1',
    });
    const steps = waited?.events.filter((event) => event.name === 'hyphae.gate') ?? [];
    expect(steps.map((event) => event.attributes?.['hyphae.gate'])).toEqual(['POLL', 'POLL', 'RETURN']);
    expect(waited?.attributes['hyphae.polls']).toBe(2);
    const claim = ran?.events.find((event) => event.name === 'hyphae.claim');
    expect(claim?.attributes).toMatchObject({ 'hyphae.claim.via': 'fresh', 'hyphae.fence': 1 });
    expect(ran?.events.map((event) => event.name)).toContain('hyphae.transition_recorded');
    expect(ran?.status.code).toBe(api.SpanStatusCode.UNSET);
    // The waiter's span covers its whole wait: it starts at the call and ends after the owner's outcome.
    const start = (span: typeof waited) => (span?.startTime[0] ?? 0) * 1e3 + (span?.startTime[1] ?? 0) / 1e6;
    const end = (span: typeof waited) => (span?.endTime[0] ?? 0) * 1e3 + (span?.endTime[1] ?? 0) / 1e6;
    expect(end(waited) - start(waited)).toBe(10);
    // One transition was recorded, and the call spans replace the per-transition span.
    expect(await otel.metric('hyphae.transitions')).toMatchObject([{ value: 1 }]);
    await otel.close();
  });

  it('marks a hard-blocked call ERROR with the gate on its span, and counts the block once without receipts', async () => {
    const otel = sdk();
    const ledger = createLedger({
      storage: createMemoryStorage(),
      agentId: 'agent',
      policyVersion: '1',
      ...otel.telemetry.ledgerHooks,
    });
    const pay = ledger.tool({ name: 'pay', sideEffectClass: 'non_idempotent_mutate' }, async () =>
      sideEffect(async () => {
        throw new Error('gateway timed out');
      }),
    );
    await expect(pay({ a: 1 }, { toolCallId: 'p' })).rejects.toThrow('gateway timed out');
    await expect(pay({ a: 1 }, { toolCallId: 'p' })).rejects.toMatchObject({ code: 'ledger_hard_block' });
    const [first, blocked] = otel.exporter.getFinishedSpans();
    expect(first?.attributes).toMatchObject({ 'hyphae.outcome': 'UNKNOWN', 'hyphae.call.result': 'threw' });
    expect(blocked?.status.code).toBe(api.SpanStatusCode.ERROR);
    expect(blocked?.attributes).toMatchObject({
      'error.type': 'ledger_hard_block',
      'hyphae.outcome': 'UNKNOWN',
      'hyphae.call.result': 'threw',
    });
    expect(blocked?.events.map((event) => event.attributes?.['hyphae.gate'])).toEqual(['HARD_BLOCK']);
    expect(await otel.metric('hyphae.hard_blocks')).toMatchObject([{ value: 1 }]);
    await otel.close();
  });

  it("enriches the framework's active span with the call's steps instead of adding one", async () => {
    const otel = sdk();
    const ledger = createLedger({
      storage: createMemoryStorage(),
      agentId: 'agent',
      policyVersion: '1',
      ...otel.telemetry.ledgerHooks,
    });
    const send = ledger.tool({ name: 'send', sideEffectClass: 'idempotent_mutate' }, async () => 'ok');
    await otel.tracer.startActiveSpan('framework tool span', async (span) => {
      await send({}, { toolCallId: 'c' });
      span.end();
    });
    const spans = otel.exporter.getFinishedSpans();
    expect(spans.map((span) => span.name)).toEqual(['framework tool span']);
    expect(spans[0]?.attributes).toMatchObject({ 'hyphae.call.result': 'returned', 'hyphae.outcome': 'COMPLETED' });
    expect(spans[0]?.events.map((event) => event.name)).toEqual(['hyphae.claim', 'hyphae.transition_recorded']);
    await otel.close();
  });

  it('gets the call events through loadConfig', async () => {
    const otel = sdk();
    const config = await loadConfig(
      {
        text: 'transition: { agent_id: a, policy_version: 1 }\naction_ledger: { storage: memory }\n',
      },
      { onEvent: otel.telemetry.onConfigEvent },
    );
    const ledger = config.ledger;
    if (ledger === undefined) throw new Error('no ledger');
    const send = ledger.tool({ name: 'send', sideEffectClass: 'idempotent_mutate' }, async () => 'ok');
    await send({}, { toolCallId: 'c' });
    expect(otel.exporter.getFinishedSpans().map((span) => span.attributes['hyphae.call.result'])).toEqual(['returned']);
    await config.close();
    await otel.close();
  });
});
