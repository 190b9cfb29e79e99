import { type Options, query, type SDKResultMessage } from '@anthropic-ai/claude-agent-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { guardClaudeAgent } from '../../src/adapters/claude-agent-sdk.js';
import { budgetFuse, createFuseBox } from '../../src/index.js';
import { type OfflineAgent, offlineAgent } from './claude-agent/agent-env.js';
import { type FakeMessagesApi, type ScriptedTurn, startFakeMessagesApi } from './claude-agent/fake-messages-api.js';

// The bundled Claude Code binary against a local Messages API: each query takes about a second.
const opened: { api: FakeMessagesApi; agent: OfflineAgent }[] = [];
afterEach(async () => {
  for (const { api, agent } of opened.splice(0)) {
    await api.close();
    agent.cleanup();
  }
});

const MAX_TOKENS = 20_000;

/** Searches whose prompt grows by 3,000 tokens a request (3,500 → 24,500 tokens per request), then an answer. */
function growing(index: number): ScriptedTurn {
  if (index >= 8) return { content: [{ type: 'text', text: 'Here is the summary.' }] };
  return {
    content: [
      {
        type: 'tool_use',
        id: `toolu_${index}`,
        name: 'Bash',
        input: { command: `echo part-${index + 1}`, description: 'search' },
      },
    ],
    usage: { input_tokens: 3_000 * (index + 1), output_tokens: 500 },
  };
}

/** The tokens the fake API's answers to its requests cost. */
function served(api: FakeMessagesApi, script: (index: number) => ScriptedTurn): number {
  return api.requests.reduce((sum, _request, index) => {
    const usage = script(index).usage ?? { input_tokens: 100, output_tokens: 50 };
    return sum + usage.input_tokens + usage.output_tokens;
  }, 0);
}

/** The output cap of each request: the binary's, and the one the pre-flight expects. */
const MAX_OUTPUT = 500;

async function offline(script: (index: number) => ScriptedTurn) {
  const api = await startFakeMessagesApi((_request, index) => script(index));
  const agent = offlineAgent(api.url);
  opened.push({ api, agent });
  const env = { ...agent.env, CLAUDE_CODE_MAX_OUTPUT_TOKENS: String(MAX_OUTPUT) };
  const base: Options = { cwd: agent.cwd, env, settingSources: [], persistSession: false };
  return { api, base };
}

function guarded(runId: string, maxTokens = MAX_TOKENS, maxOutputTokens = MAX_OUTPUT) {
  const fuses = createFuseBox({ budget: budgetFuse({ maxTokens }) });
  const agent = guardClaudeAgent({ guards: { fuses }, runId, maxOutputTokens });
  const spent = () => fuses.forRun(runId).stats().budget?.spentTokens;
  return { agent, spent };
}

async function drain(messages: AsyncIterable<unknown>, observe: (message: never) => void) {
  let result: SDKResultMessage | undefined;
  for await (const message of messages as AsyncIterable<{ type: string }>) {
    observe(message as never);
    if (message.type === 'result') result = message as SDKResultMessage;
  }
  return result;
}

describe('guardClaudeAgent budget with query()', { timeout: 60_000 }, () => {
  it('sends no model request past the ceiling: stock makes every request', async () => {
    const { api, base } = await offline(growing);

    const result = await drain(
      query({ prompt: 'summarise c_9', options: { ...base, allowedTools: ['Bash'] } }),
      () => {},
    );

    expect(result).toMatchObject({ subtype: 'success' });
    expect(api.requests).toHaveLength(9);
    expect(served(api, growing)).toBeGreaterThan(MAX_TOKENS);
  });

  it.each([
    ['assistant messages and the result', false],
    ['stream events', true],
  ])('ends the query before the request that would pass the ceiling (usage from %s)', async (_from, partial) => {
    const { api, base } = await offline(growing);
    const { agent, spent } = guarded(`budget-${partial}`);

    const result = await drain(
      query({
        prompt: 'summarise c_9',
        options: { ...base, allowedTools: ['Bash'], hooks: { ...agent.hooks }, includePartialMessages: partial },
      }),
      agent.observe,
    );

    // 3,500 + 6,500 + 9,500 = 19,500 tokens; the fourth request (12,500) is never sent.
    expect(api.requests).toHaveLength(3);
    expect(served(api, growing)).toBe(19_500);
    expect(spent()).toBe(19_500);
    expect(result).toMatchObject({ terminal_reason: 'hook_stopped' });
    expect(agent.run.stopped).toMatchObject({ code: 'budget_tokens_exceeded', terminal: true });
    expect(api.connects).toEqual([]);
  });

  it('sends no request past the ceiling when `observe` runs one message behind the hooks', async () => {
    const { api, base } = await offline(growing);
    const { agent, spent } = guarded('budget-behind');
    let held: unknown;
    const behind = (message: never) => {
      if (held !== undefined) agent.observe(held as never);
      held = message;
    };

    const result = await drain(
      query({ prompt: 'summarise c_9', options: { ...base, allowedTools: ['Bash'], hooks: { ...agent.hooks } } }),
      behind,
    );
    agent.observe(held as never);

    expect(served(api, growing)).toBeLessThanOrEqual(MAX_TOKENS);
    expect(spent()).toBe(served(api, growing));
    expect(result).toMatchObject({ terminal_reason: 'hook_stopped' });
    expect(agent.run.stopped?.code).toBe('budget_tokens_exceeded');
  });

  it('ends the query before its first request when the prompt and expected output pass the ceiling', async () => {
    const { api, base } = await offline(growing);
    const { agent, spent } = guarded('budget-first', 400);

    const result = await drain(
      query({ prompt: 'summarise c_9', options: { ...base, allowedTools: ['Bash'], hooks: { ...agent.hooks } } }),
      agent.observe,
    );

    expect(api.requests).toHaveLength(0);
    expect(spent()).toBe(0);
    expect(result?.subtype === 'success' && result.result).toMatch(/^Operation stopped by hook: .*400 tokens ceiling/);
    expect(agent.run.stopped?.code).toBe('budget_tokens_exceeded');
  });
});
