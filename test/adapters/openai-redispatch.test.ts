import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createGuardPipeline, runGuardedToolLoop } from '../../src/adapters/openai.js';
import { createLedger, createMemoryStorage, validateTranscript } from '../../src/index.js';
import { createSqliteStorage } from '../../src/storage/sqlite.js';
import { type OpenAiTestServer, startOpenAiServer, textStep, toolCallsStep } from '../helpers/openai-server.js';

const tools = [{ type: 'function' as const, function: { name: 'send_payment', parameters: { type: 'object' } } }];
const user = [{ role: 'user', content: 'Pay invoice 42' }];
const pay = { id: 'call_pay', name: 'send_payment', args: { invoice: 42, amount: 100 } };

let server: OpenAiTestServer;
let dir: string | undefined;
afterEach(async () => {
  await server?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
  dir = undefined;
});

/** A fake payment provider: every body run is one charge. */
function provider() {
  const charges: unknown[] = [];
  const sendPayment = async (args: unknown) => {
    charges.push(args);
    return { chargeId: `ch_${charges.length}` };
  };
  return { charges, sendPayment };
}

describe('runGuardedToolLoop redispatch and resume', () => {
  it('does not run a call id the server sends again on a later turn', async () => {
    server = await startOpenAiServer([toolCallsStep([pay]), toolCallsStep([pay]), textStep('paid')]);
    const client = new OpenAI({ apiKey: 'k', baseURL: server.baseURL, maxRetries: 0 });
    const { charges, sendPayment } = provider();
    const ledger = createLedger({ storage: createMemoryStorage(), agentId: 'payer', policyVersion: '1' });
    const guards = createGuardPipeline({ ledger }).forRun({ threadId: 't', runId: 'r' });
    const result = await runGuardedToolLoop({
      client,
      model: 'm',
      messages: user,
      tools,
      executors: { send_payment: sendPayment },
      guards,
    });
    expect(charges).toHaveLength(1);
    expect(result.stopReason).toBe('completed');
    expect(validateTranscript(result.messages).ok).toBe(true);
    expect(String(result.messages[3]?.content)).toMatch(/`call_pay`.*already answered earlier/);
  });

  it('resumes after a failed request without paying twice (SQLite ledger, client retries)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'hyphae-openai-'));
    const path = join(dir, 'ledger.db');
    const { charges, sendPayment } = provider();
    // Turn 1 asks for the payment; turn 2 fails on every attempt the client makes (1 + 2 retries).
    const outage = { status: 503, message: 'overloaded' } as const;
    server = await startOpenAiServer([toolCallsStep([pay]), outage, outage, outage]);

    async function attempt() {
      const storage = createSqliteStorage({ path });
      const ledger = createLedger({ storage, agentId: 'payer', policyVersion: '1' });
      const guards = createGuardPipeline({ ledger, tools: { send_payment: { sideEffectClass: 'payment' } } }).forRun({
        threadId: 'thread-42',
        runId: 'run-1',
      });
      try {
        return await runGuardedToolLoop({
          client: new OpenAI({ apiKey: 'k', baseURL: server.baseURL, maxRetries: 2 }),
          model: 'm',
          messages: user,
          tools,
          executors: { send_payment: sendPayment },
          guards,
        });
      } finally {
        await ledger.close();
      }
    }

    await expect(attempt()).rejects.toMatchObject({ status: 503 });
    expect(server.requests).toHaveLength(4);
    expect(charges).toHaveLength(1);

    // A restarted worker replays the same conversation; the model repeats the same call id.
    server.push(toolCallsStep([pay]), textStep('Invoice 42 is paid'));
    const resumed = await attempt();
    expect(charges).toHaveLength(1);
    expect(resumed.stopReason).toBe('completed');
    expect(resumed.messages[2]).toEqual({ role: 'tool', tool_call_id: 'call_pay', content: '{"chargeId":"ch_1"}' });
    const storage = createSqliteStorage({ path });
    const { records } = await storage.list();
    await storage.close();
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      ticket: 'call_pay',
      scope: { threadId: 'thread-42', runId: 'run-1' },
      outcome: 'COMPLETED',
      sideEffectClass: 'non_idempotent_mutate',
    });
  });
});
