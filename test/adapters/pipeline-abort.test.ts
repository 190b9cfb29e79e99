import { describe, expect, it } from 'vitest';
import { createGuardPipeline } from '../../src/adapters/pipeline.js';
import type { ToolExecutor } from '../../src/adapters/shared/types.js';
import { createLedger, createMemoryStorage } from '../../src/index.js';
import { deferred, until } from '../ledger/ledger-helpers.js';

/** A provider whose charges wait for `release()`, counting the ones that really happen. */
function slowProvider() {
  const gate = deferred();
  const charges: number[] = [];
  return {
    charges,
    release: () => gate.resolve(),
    async charge(amount: number): Promise<{ readonly charged: number }> {
      await gate.promise;
      charges.push(amount);
      return { charged: amount };
    },
  };
}

function paymentRun() {
  const ledger = createLedger({ storage: createMemoryStorage(), agentId: 'agent', policyVersion: '1' });
  return createGuardPipeline({ ledger, tools: { send_payment: { sideEffectClass: 'payment' } } }).forRun({
    threadId: 't1',
    runId: 'r1',
  });
}

const call = { id: 'call_pay', name: 'send_payment', args: { amount: 40 } };
const timeout = (): DOMException => new DOMException('The operation timed out', 'TimeoutError');

describe('guard pipeline: a payment aborted mid-tool, then retried with the same call id', () => {
  it('charges once when the framework gave up on the tool (a timeout racing the body)', async () => {
    const run = paymentRun();
    const provider = slowProvider();
    let started = 0;
    // As LangChain's tool timeout does: the tool's promise is raced against the signal and dropped.
    const execute: ToolExecutor = (args, { abortSignal }) => {
      started += 1;
      const inner = provider.charge((args as { amount: number }).amount);
      return new Promise((resolve, reject) => {
        abortSignal?.addEventListener('abort', () => reject(abortSignal.reason), { once: true });
        inner.then(resolve, reject);
      });
    };
    const controller = new AbortController();

    const first = run.executeToolCall(call, execute, { abortSignal: controller.signal });
    await until(() => started === 1, 'the tool to start');
    controller.abort(timeout());
    const aborted = await first;
    const retry = run.executeToolCall(call, execute);
    provider.release();
    await until(() => provider.charges.length > 0, 'the dropped charge to land');

    expect(aborted).toMatchObject({ status: 'error', executed: true });
    expect(await retry).toMatchObject({ status: 'refused', code: 'ledger_hard_block' });
    expect(provider.charges).toEqual([40]);
    expect(started).toBe(1);
  });

  it('returns the one charge to the retry when the tool body kept running', async () => {
    const run = paymentRun();
    const provider = slowProvider();
    let started = 0;
    const execute: ToolExecutor = (args) => {
      started += 1;
      return provider.charge((args as { amount: number }).amount);
    };
    const controller = new AbortController();

    const first = run.executeToolCall(call, execute, { abortSignal: controller.signal });
    await until(() => started === 1, 'the tool to start');
    controller.abort(timeout());
    const aborted = await first;
    const retry = run.executeToolCall(call, execute);
    provider.release();

    expect(aborted).toMatchObject({ status: 'error' });
    expect(await retry).toEqual({ status: 'ok', result: { charged: 40 }, source: 'ledger' });
    expect(started).toBe(1);
    expect(provider.charges).toEqual([40]);
  });
});
