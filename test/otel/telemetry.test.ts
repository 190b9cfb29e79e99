import * as api from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import {
  createFuseBox,
  createLedger,
  createMemoryStorage,
  permissionFuse,
  recordExternalOperation,
  sideEffect,
} from '../../src/index.js';
import { createHmacSigner } from '../../src/ledger/receipts/signers.js';
import { createMemoryReceiptSink } from '../../src/storage/memory-receipt-sink.js';
import { sdk, useContextManager } from './sdk.js';

useContextManager();

describe('hyphae/otel', () => {
  it('gives a ledgered call without a span of its own an execute_tool span with the GenAI and hyphae attributes', async () => {
    const otel = sdk();
    const ledger = createLedger({
      storage: createMemoryStorage(),
      agentId: 'agent',
      policyVersion: '1',
      onEvent: otel.telemetry.onLedgerEvent,
    });
    const pay = ledger.tool({ name: 'send_payment', sideEffectClass: 'non_idempotent_mutate' }, async () =>
      sideEffect(async () => {
        await recordExternalOperation('pi_9');
        throw new Error('gateway timed out');
      }),
    );
    await expect(pay({ amount: 5 }, { toolCallId: 'call_1' })).rejects.toThrow('gateway timed out');
    const [span] = otel.exporter.getFinishedSpans();
    expect(span?.name).toBe('execute_tool send_payment');
    expect(span?.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'send_payment',
      'gen_ai.tool.call.id': 'call_1',
      'hyphae.outcome': 'UNKNOWN',
      'hyphae.boundary': 'maybe_crossed',
      'hyphae.external_operation_ref': 'pi_9',
      'hyphae.fence': 1,
    });
    expect(span?.status.code).toBe(api.SpanStatusCode.ERROR);
    const transitions = await otel.metric('hyphae.transitions');
    expect(transitions).toMatchObject([{ attributes: { 'hyphae.outcome': 'UNKNOWN' }, value: 1 }]);
    expect(await otel.metric('hyphae.tool.duration')).toHaveLength(1);
    await otel.close();
  });

  it("enriches the framework's active tool span instead of adding one, with one event per fuse verdict", async () => {
    const otel = sdk();
    const box = createFuseBox({
      permission: permissionFuse({ granted: ['read'], tools: { lookup: ['read'], refund: ['spend_money'] } }),
      onEvent: otel.telemetry.onFuseEvent,
    });
    const run = box.forRun('run-1');
    const ledger = createLedger({
      storage: createMemoryStorage(),
      agentId: 'agent',
      policyVersion: '1',
      onEvent: otel.telemetry.onLedgerEvent,
    });
    const lookup = ledger.tool({ name: 'lookup', sideEffectClass: 'read' }, async () => ({ ok: true }));
    await otel.tracer.startActiveSpan('framework tool span', async (span) => {
      expect(run.checkToolCall({ name: 'lookup', args: {} }).allowed).toBe(true);
      await lookup({}, { toolCallId: 'call_2' });
      expect(run.checkToolCall({ name: 'refund', args: { amount: 1 } }).allowed).toBe(false);
      span.end();
    });
    const spans = otel.exporter.getFinishedSpans();
    expect(spans.map((s) => s.name)).toEqual(['framework tool span']);
    const [span] = spans;
    expect(span?.attributes).toMatchObject({ 'hyphae.outcome': 'COMPLETED', 'gen_ai.tool.call.id': 'call_2' });
    const guardrails = span?.events.filter((event) => event.name === 'gen_ai.guardrail.result') ?? [];
    expect(guardrails.map((event) => event.attributes?.['hyphae.verdict'])).toEqual(['allowed', 'refused']);
    expect(guardrails[1]?.attributes).toMatchObject({ 'hyphae.fuse': 'permission', 'gen_ai.tool.name': 'refund' });
    const verdicts = await otel.metric('hyphae.fuse.verdicts');
    expect(verdicts.find((p) => p.attributes['hyphae.verdict'] === 'refused')?.value).toBe(1);
    await otel.close();
  });

  it('counts hard blocks (through their receipts) and operator releases', async () => {
    const otel = sdk();
    const ledger = createLedger({
      storage: createMemoryStorage(),
      agentId: 'agent',
      policyVersion: '1',
      receipts: { sink: createMemoryReceiptSink(), signer: createHmacSigner({ key: 'k'.repeat(48), keyId: 'k1' }) },
      onEvent: otel.telemetry.onLedgerEvent,
    });
    const pay = ledger.tool({ name: 'pay', sideEffectClass: 'non_idempotent_mutate' }, async () =>
      sideEffect(async () => {
        throw new Error('lost');
      }),
    );
    await expect(pay({ a: 1 }, { toolCallId: 'c' })).rejects.toThrow('lost');
    await expect(pay({ a: 1 }, { toolCallId: 'c' })).rejects.toThrow(/hard/i);
    expect(await otel.metric('hyphae.hard_blocks')).toMatchObject([
      { value: 1, attributes: { 'gen_ai.tool.name': 'pay' } },
    ]);
    const key = (await ledger.list()).records[0]?.key as string;
    await ledger.release(key, { verified: 'not_executed', by: 'ada', reason: 'checked' });
    const actions = (await otel.metric('hyphae.transitions')).map((p) => p.attributes['hyphae.action']);
    expect(actions).toContain('release');
    const released = otel.exporter.getFinishedSpans().find((s) => s.attributes['hyphae.action'] === 'release');
    expect(released?.attributes['hyphae.operator.by']).toBe('ada');
    await otel.close();
  });
});
