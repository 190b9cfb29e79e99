import {
  createSdkMcpServer,
  type McpServerConfig,
  type Options,
  query,
  type SDKResultMessage,
  tool,
} from '@anthropic-ai/claude-agent-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGuardPipeline, guardClaudeAgent } from '../../src/adapters/claude-agent-sdk.js';
import { createFuseBox, createLedger, createMemoryStorage, loopFuse, permissionFuse } from '../../src/index.js';
import { type OfflineAgent, offlineAgent } from './claude-agent/agent-env.js';
import {
  type FakeMessagesApi,
  type ScriptedTurn,
  startFakeMessagesApi,
  toolResultsIn,
} from './claude-agent/fake-messages-api.js';

// The bundled Claude Code binary against a local Messages API: each query takes about a second.
const opened: { api: FakeMessagesApi; agent: OfflineAgent }[] = [];
afterEach(async () => {
  for (const { api, agent } of opened.splice(0)) {
    await api.close();
    agent.cleanup();
  }
});

async function offline(script: readonly ScriptedTurn[] | ((index: number) => ScriptedTurn)) {
  const api = await startFakeMessagesApi(typeof script === 'function' ? (_request, index) => script(index) : script);
  const agent = offlineAgent(api.url);
  opened.push({ api, agent });
  const base: Options = { cwd: agent.cwd, env: agent.env, settingSources: [], persistSession: false };
  return { api, base };
}

async function drain(messages: AsyncIterable<unknown>, observe?: (message: never) => void) {
  let result: SDKResultMessage | undefined;
  for await (const message of messages as AsyncIterable<{ type: string }>) {
    observe?.(message as never);
    if (message.type === 'result') result = message as SDKResultMessage;
  }
  return result;
}

const CHARGE = { id: 'toolu_pay', name: 'mcp__pay__charge', input: { amount: 40, invoice: 'inv_7' } } as const;

/** A payment provider's charge as an in-process tool; with a gate, the charge waits for it. */
function chargeServer(gate?: Promise<void>) {
  const charges: number[] = [];
  let started: () => void = () => {};
  let settled: () => void = () => {};
  const startedP = new Promise<void>((resolve) => {
    started = resolve;
  });
  const settledP = new Promise<void>((resolve) => {
    settled = resolve;
  });
  const charge = tool(
    'charge',
    'Charge an invoice',
    { amount: z.number(), invoice: z.string() },
    async ({ amount }) => {
      started();
      await gate;
      charges.push(amount);
      settled();
      return { content: [{ type: 'text' as const, text: `charge ch_${charges.length} of ${amount}` }] };
    },
  );
  return { charge, charges, started: startedP, settled: settledP };
}

function payOptions(base: Options, pay: McpServerConfig, agent: ReturnType<typeof guardClaudeAgent>): Options {
  return { ...base, mcpServers: { pay }, allowedTools: ['mcp__pay__charge'], hooks: { ...agent.hooks } };
}

const bash = (id: string, command: string): ScriptedTurn => ({
  content: [{ type: 'tool_use', id, name: 'Bash', input: { command, description: 'check' } }],
});

describe('guardClaudeAgent with query()', { timeout: 60_000 }, () => {
  it('ends the query on the call the loop fuse stops, with no further model request', async () => {
    const { api, base } = await offline((index) => bash(`toolu_${index}`, 'echo still-waiting'));
    const agent = guardClaudeAgent({
      guards: { fuses: createFuseBox({ loop: loopFuse({ repeatThreshold: 3 }) }) },
      runId: 'loop-run',
    });

    const result = await drain(
      query({ prompt: 'wait for the job', options: { ...base, allowedTools: ['Bash'], hooks: { ...agent.hooks } } }),
      agent.observe,
    );

    expect(result).toMatchObject({ terminal_reason: 'hook_stopped' });
    expect(api.requests).toHaveLength(3);
    expect(toolResultsIn(api.requests[2])).toEqual([['toolu_1', expect.stringContaining('still-waiting')]]);
    expect(agent.run.stopped?.code).toBe('loop_repeat');
    expect(api.connects).toEqual([]);
  });

  it('denies a call the permission fuse refuses; its reason reaches the model in the next request', async () => {
    const { api, base } = await offline([
      {
        content: [{ type: 'tool_use', id: 'toolu_w', name: 'Write', input: { file_path: 'notes.txt', content: 'x' } }],
      },
      { content: [{ type: 'text', text: 'I may not write files.' }] },
    ]);
    const agent = guardClaudeAgent({
      guards: {
        fuses: createFuseBox({
          permission: permissionFuse({ granted: ['read'], tools: { Read: ['read'], Write: ['write'] } }),
        }),
      },
      runId: 'permission-run',
    });

    const result = await drain(
      query({ prompt: 'save a note', options: { ...base, hooks: { ...agent.hooks }, canUseTool: agent.canUseTool } }),
    );

    expect(result).toMatchObject({ subtype: 'success', result: 'I may not write files.' });
    expect(api.requests).toHaveLength(2);
    expect(toolResultsIn(api.requests[1])).toEqual([
      ['toolu_w', expect.stringMatching(/Write.*was NOT executed.*permissions `write`/)],
    ]);
    expect(api.connects).toEqual([]);
  });

  it('asks the approver through `canUseTool`; the refusal reaches the model and the tool never runs', async () => {
    const { api, base } = await offline([
      { content: [{ type: 'tool_use', ...CHARGE }] },
      { content: [{ type: 'text', text: 'The payment needs approval.' }] },
    ]);
    const asked: string[] = [];
    const agent = guardClaudeAgent({
      guards: {},
      runId: 'approval-run',
      approve: ({ toolName, toolUseId }) => {
        asked.push(`${toolName} ${toolUseId}`);
        return { deny: 'the finance team declined it' };
      },
    });
    const payments = chargeServer();
    const pay = createSdkMcpServer({ name: 'pay', tools: agent.guardTools('pay', [payments.charge]) });

    const result = await drain(
      query({
        prompt: 'pay invoice 7',
        options: { ...base, mcpServers: { pay }, hooks: { ...agent.hooks }, canUseTool: agent.canUseTool },
      }),
    );

    expect(result).toMatchObject({ subtype: 'success', result: 'The payment needs approval.' });
    expect(asked).toEqual(['mcp__pay__charge toolu_pay']);
    expect(payments.charges).toEqual([]);
    expect(toolResultsIn(api.requests[1])).toEqual([
      ['toolu_pay', expect.stringContaining('NOT executed: the finance team declined it')],
    ]);
  });

  it('charges once when a whole run is retried and the model re-sends the same tool_use', async () => {
    const pipeline = createGuardPipeline({
      ledger: createLedger({ storage: createMemoryStorage(), agentId: 'payments', policyVersion: '1' }),
    });
    const payments = chargeServer();
    const requests = [];
    const results = [];
    for (const attempt of [1, 2]) {
      const { api, base } = await offline([
        { content: [{ type: 'tool_use', ...CHARGE }] },
        { content: [{ type: 'text', text: 'paid' }] },
      ]);
      const agent = guardClaudeAgent({ guards: pipeline, runId: 'pay-run' });
      const pay = createSdkMcpServer({ name: 'pay', tools: agent.guardTools('pay', [payments.charge]) });
      results.push(
        await drain(query({ prompt: `pay invoice 7 (attempt ${attempt})`, options: payOptions(base, pay, agent) })),
      );
      requests.push(api.requests[1]);
    }

    expect(results).toMatchObject([{ result: 'paid' }, { result: 'paid' }]);
    expect(payments.charges).toEqual([40]);
    expect(requests.map(toolResultsIn)).toEqual([
      [['toolu_pay', 'charge ch_1 of 40']],
      [['toolu_pay', 'charge ch_1 of 40']],
    ]);
    const { records } = (await pipeline.ledger?.list()) ?? { records: [] };
    expect(records).toMatchObject([{ tool: 'charge', ticket: 'toolu_pay', outcome: 'COMPLETED' }]);
  });

  it('charges once when the run is aborted mid-charge and retried', async () => {
    const pipeline = createGuardPipeline({
      ledger: createLedger({ storage: createMemoryStorage(), agentId: 'payments', policyVersion: '1' }),
    });
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const payments = chargeServer(gate);

    const first = await offline([{ content: [{ type: 'tool_use', ...CHARGE }] }]);
    const firstAgent = guardClaudeAgent({ guards: pipeline, runId: 'pay-run' });
    const abortController = new AbortController();
    void payments.started.then(() => abortController.abort());
    const firstPay = createSdkMcpServer({ name: 'pay', tools: firstAgent.guardTools('pay', [payments.charge]) });
    const aborted = await drain(
      query({ prompt: 'pay invoice 7', options: { ...payOptions(first.base, firstPay, firstAgent), abortController } }),
    ).catch((error: unknown) => error);
    // The provider took the charge after the agent went away.
    release();
    await payments.settled;

    const retry = await offline([
      { content: [{ type: 'tool_use', ...CHARGE }] },
      { content: [{ type: 'text', text: 'paid' }] },
    ]);
    const retryAgent = guardClaudeAgent({ guards: pipeline, runId: 'pay-run' });
    const retryPay = createSdkMcpServer({ name: 'pay', tools: retryAgent.guardTools('pay', [payments.charge]) });
    const result = await drain(
      query({ prompt: 'pay invoice 7', options: payOptions(retry.base, retryPay, retryAgent) }),
    );

    expect(aborted).toBeInstanceOf(Error);
    expect(result).toMatchObject({ result: 'paid' });
    expect(payments.charges).toEqual([40]);
    expect(toolResultsIn(retry.api.requests[1])).toEqual([['toolu_pay', 'charge ch_1 of 40']]);
  });
});
