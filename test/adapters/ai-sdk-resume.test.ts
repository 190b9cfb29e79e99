import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateText, isStepCount, streamText, tool } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGuardPipeline, guardTools } from '../../src/adapters/ai-sdk.js';
import { createLedger, createMemoryStorage } from '../../src/index.js';
import { createSqliteStorage } from '../../src/storage/sqlite.js';
import { scriptedModel } from '../helpers/ai-sdk-model.js';

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
  dir = undefined;
});

const pay = { id: 'call_pay', name: 'send_payment', input: { invoice: 42, amount: 100 } };

function paymentProvider() {
  const charges: unknown[] = [];
  const sendPayment = tool({
    inputSchema: z.object({ invoice: z.number(), amount: z.number() }),
    execute: async (input) => {
      charges.push(input);
      return { chargeId: `ch_${charges.length}` };
    },
  });
  return { charges, sendPayment };
}

describe('guardTools on the AI SDK resume path', () => {
  it('re-running generateText with the same messages does not pay twice (SQLite ledger)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'hyphae-ai-sdk-'));
    const path = join(dir, 'ledger.db');
    const { charges, sendPayment } = paymentProvider();

    async function attempt(model: ReturnType<typeof scriptedModel>) {
      const ledger = createLedger({ storage: createSqliteStorage({ path }), agentId: 'payer', policyVersion: '1' });
      const guards = createGuardPipeline({ ledger, tools: { send_payment: { sideEffectClass: 'payment' } } }).forRun({
        threadId: 'thread-42',
        runId: 'run-1',
      });
      try {
        return await generateText({
          model,
          prompt: 'Pay invoice 42',
          tools: guardTools({ send_payment: sendPayment }, guards),
          stopWhen: isStepCount(5),
          maxRetries: 0,
        });
      } finally {
        await ledger.close();
      }
    }

    // The payment runs, then the provider dies before the model's next step.
    const first = scriptedModel([{ calls: [pay] }, { error: new Error('provider crashed') }]);
    await expect(attempt(first)).rejects.toThrow(/provider crashed/);
    expect(charges).toHaveLength(1);

    // A restarted worker re-runs the same conversation; the model repeats the same call id.
    const second = scriptedModel([{ calls: [pay] }, { text: 'Invoice 42 is paid' }]);
    const result = await attempt(second);
    expect(charges).toHaveLength(1);
    expect(result.text).toBe('Invoice 42 is paid');
    const toolMessage = second.prompts[1]?.find((message) => message.role === 'tool');
    expect(toolMessage?.content).toMatchObject([
      { toolCallId: 'call_pay', output: { type: 'json', value: { chargeId: 'ch_1' } } },
    ]);
  });
});

describe('guardTools with a streaming (async generator) tool', () => {
  function progressTool() {
    const runs: unknown[] = [];
    const report = tool({
      inputSchema: z.object({ id: z.number() }),
      async *execute({ id }) {
        runs.push(id);
        yield { status: 'working', id };
        yield { status: 'done', id };
      },
    });
    return { runs, report };
  }

  it('streams preliminary results through the guards', async () => {
    const { runs, report } = progressTool();
    const guards = createGuardPipeline().forRun({ runId: 'r' });
    const model = scriptedModel([{ calls: [{ id: 'call_1', name: 'report', input: { id: 7 } }] }, { text: 'ok' }]);
    const result = streamText({ model, prompt: 'go', tools: guardTools({ report }, guards), stopWhen: isStepCount(3) });
    const results: { preliminary: boolean | undefined; output: unknown }[] = [];
    for await (const part of result.fullStream) {
      if (part.type === 'tool-result') results.push({ preliminary: part.preliminary, output: part.output });
    }
    expect(runs).toEqual([7]);
    expect(results).toEqual([
      { preliminary: true, output: { status: 'working', id: 7 } },
      { preliminary: true, output: { status: 'done', id: 7 } },
      { preliminary: undefined, output: { status: 'done', id: 7 } },
    ]);
  });

  it('replays a redispatched streaming call once, from the ledger', async () => {
    const { runs, report } = progressTool();
    const ledger = createLedger({ storage: createMemoryStorage(), agentId: 'a', policyVersion: '1' });
    const guards = createGuardPipeline({ ledger, tools: { report: { sideEffectClass: 'read' } } }).forRun({
      runId: 'r',
    });
    const guarded = guardTools({ report }, guards);
    const options = { toolCallId: 'call_1', messages: [], context: {} };
    const drain = async () => {
      const values: unknown[] = [];
      for await (const value of guarded.report.execute({ id: 7 }, options) as AsyncIterable<unknown>)
        values.push(value);
      return values;
    };
    expect(await drain()).toEqual([
      { status: 'working', id: 7 },
      { status: 'done', id: 7 },
    ]);
    expect(await drain()).toEqual([{ status: 'done', id: 7 }]);
    expect(runs).toEqual([7]);
  });
});
