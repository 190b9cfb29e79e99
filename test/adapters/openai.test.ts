import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createGuardPipeline, type OpenAiChatClient, runGuardedToolLoop } from '../../src/adapters/openai.js';
import {
  budgetFuse,
  createFuseBox,
  createLedger,
  createMemoryStorage,
  loopFuse,
  permissionFuse,
  validateTranscript,
} from '../../src/index.js';
import { type OpenAiTestServer, startOpenAiServer, textStep, toolCallsStep } from '../helpers/openai-server.js';

const tools = ['lookup', 'refund'].map((name) => ({
  type: 'function' as const,
  function: { name, parameters: { type: 'object', properties: {} } },
}));

let server: OpenAiTestServer;
afterEach(() => server?.close());

async function setup(script: Parameters<typeof startOpenAiServer>[0]) {
  server = await startOpenAiServer(script);
  const client = new OpenAI({ apiKey: 'test-key', baseURL: server.baseURL, maxRetries: 0 });
  // The real client fits the structural type the loop declares.
  const typed: OpenAiChatClient = client;
  return typed;
}

function counted(result: unknown = { ok: true }) {
  const calls: unknown[] = [];
  const fn = async (args: unknown) => {
    calls.push(args);
    return result;
  };
  return Object.assign(fn, { calls });
}

const user = [{ role: 'user', content: 'help' }];

describe('runGuardedToolLoop', () => {
  it('runs tool calls through the pipeline and answers each with its call id', async () => {
    const client = await setup([toolCallsStep([{ id: 'call_1', name: 'lookup', args: { id: 7 } }]), textStep('done')]);
    const lookup = counted({ status: 'shipped' });
    const guards = createGuardPipeline({
      ledger: createLedger({ storage: createMemoryStorage(), agentId: 'a', policyVersion: '1' }),
    }).forRun({ threadId: 't', runId: 'r' });
    const result = await runGuardedToolLoop({
      client,
      model: 'gpt-4o-mini',
      messages: user,
      tools,
      executors: { lookup },
      guards,
    });
    expect(result).toMatchObject({ stopReason: 'completed', turns: 2, finalMessage: { content: 'done' } });
    expect(lookup.calls).toEqual([{ id: 7 }]);
    expect(result.messages.at(-2)).toEqual({ role: 'tool', tool_call_id: 'call_1', content: '{"status":"shipped"}' });
    expect(validateTranscript(result.messages).ok).toBe(true);
    expect(server.requests[1]?.messages).toEqual(result.messages.slice(0, -1));
    expect(server.requests[0]?.max_completion_tokens).toBe(4096);
  });

  it('sends nothing when the budget pre-flight refuses the request', async () => {
    const client = await setup([textStep('never')]);
    const guards = createGuardPipeline({ fuses: createFuseBox({ budget: budgetFuse({ maxTokens: 100 }) }) }).forRun({
      runId: 'r',
    });
    const result = await runGuardedToolLoop({ client, model: 'm', messages: user, tools, executors: {}, guards });
    expect(result).toMatchObject({ stopReason: 'model_call_refused', turns: 0 });
    expect(result.refusal?.code).toBe('budget_tokens_exceeded');
    expect(server.requests).toEqual([]);
  });

  it('echoes only honoured parallel calls and tells the model about the dropped ones', async () => {
    const client = await setup([
      toolCallsStep([
        { id: 'call_a', name: 'lookup', args: { id: 1 } },
        { id: 'call_b', name: 'lookup', args: { id: 2 } },
        { id: 'call_c', name: 'lookup', args: { id: 3 } },
      ]),
      textStep('done'),
    ]);
    const lookup = counted();
    const guards = createGuardPipeline().forRun({ runId: 'r' });
    const result = await runGuardedToolLoop({
      client,
      model: 'm',
      messages: user,
      tools,
      executors: { lookup },
      guards,
      maxParallelToolCalls: 2,
    });
    expect(lookup.calls).toEqual([{ id: 1 }, { id: 2 }]);
    const assistant = result.messages[1];
    const echoed = assistant !== undefined && 'tool_calls' in assistant ? assistant.tool_calls : [];
    expect(echoed.map((call) => call.id)).toEqual(['call_a', 'call_b']);
    const note = result.messages[4];
    expect(note).toMatchObject({ role: 'system' });
    expect(String(note?.content)).toMatch(/NOT executed[\s\S]*`lookup` \(call `call_c`\): only 2 tool calls per turn/);
    expect(validateTranscript(result.messages).ok).toBe(true);
  });

  it('asks for one call per turn when only one is honoured', async () => {
    const client = await setup([textStep('done')]);
    const guards = createGuardPipeline().forRun({ runId: 'r' });
    await runGuardedToolLoop({
      client,
      model: 'm',
      messages: user,
      tools,
      executors: {},
      guards,
      maxParallelToolCalls: 1,
    });
    expect(server.requests[0]?.parallel_tool_calls).toBe(false);
  });

  it('stops the sibling calls of a turn after a terminal refusal, and the loop', async () => {
    const client = await setup([
      toolCallsStep([
        { id: 'call_r', name: 'refund', args: { amount: 40 } },
        { id: 'call_l', name: 'lookup', args: { id: 1 } },
      ]),
      textStep('never'),
    ]);
    const fuses = createFuseBox({
      permission: permissionFuse({ granted: ['read'], tools: { lookup: ['read'], refund: ['spend'] }, maxDenials: 1 }),
    });
    const lookup = counted();
    const refund = counted();
    const guards = createGuardPipeline({ fuses }).forRun({ runId: 'r' });
    const result = await runGuardedToolLoop({
      client,
      model: 'm',
      messages: user,
      tools,
      executors: { lookup, refund },
      guards,
    });
    expect(result).toMatchObject({ stopReason: 'stopped', turns: 1, refusal: { code: 'permission_denied' } });
    expect(lookup.calls).toEqual([]);
    expect(refund.calls).toEqual([]);
    const answers = result.messages.filter((message) => message.role === 'tool').map((message) => message.content);
    expect(answers).toHaveLength(2);
    for (const answer of answers) expect(answer).toMatch(/NOT executed/);
    expect(server.requests).toHaveLength(1);
  });

  it('ends the loop on any refusal of a terminal fuse', async () => {
    const poll = { id: 'call_1', name: 'lookup', args: { id: 1 } };
    const client = await setup([toolCallsStep([poll]), toolCallsStep([{ ...poll, id: 'call_2' }]), textStep('never')]);
    const fuses = createFuseBox({ loop: loopFuse({ repeatThreshold: 2 }) });
    const guards = createGuardPipeline({ fuses }).forRun({ runId: 'r' });
    const result = await runGuardedToolLoop({
      client,
      model: 'm',
      messages: user,
      tools,
      executors: { lookup: counted('same') },
      guards,
      terminalFuses: ['loop'],
    });
    expect(result).toMatchObject({ stopReason: 'stopped', turns: 2, refusal: { code: 'loop_repeat', terminal: true } });
    expect(server.requests).toHaveLength(2);
  });

  it('tells the model a refused call did NOT happen and carries on', async () => {
    const client = await setup([toolCallsStep([{ id: 'call_x', name: 'drop_table', args: {} }]), textStep('sorry')]);
    const guards = createGuardPipeline().forRun({ runId: 'r' });
    const result = await runGuardedToolLoop({ client, model: 'm', messages: user, tools, executors: {}, guards });
    expect(result.stopReason).toBe('completed');
    expect(result.messages[2]).toMatchObject({ role: 'tool', tool_call_id: 'call_x' });
    expect(String(result.messages[2]?.content)).toMatch(/does not exist; the call was NOT executed/);
  });

  it('repairs an orphan tool result in the history before the first request', async () => {
    const client = await setup([textStep('hi')]);
    const guards = createGuardPipeline().forRun({ runId: 'r' });
    const history = [...user, { role: 'tool', tool_call_id: 'call_gone', content: 'stale' }];
    const result = await runGuardedToolLoop({ client, model: 'm', messages: history, tools, executors: {}, guards });
    expect(server.requests[0]?.messages).toEqual(user);
    expect(history).toHaveLength(2);
    expect(result.messages).toEqual([...user, { role: 'assistant', content: 'hi' }]);
  });

  it('re-throws an abort instead of answering the model', async () => {
    const client = await setup([toolCallsStep([{ id: 'call_1', name: 'lookup', args: {} }])]);
    const controller = new AbortController();
    const guards = createGuardPipeline().forRun({ runId: 'r' });
    const lookup = async () => {
      controller.abort(new DOMException('stopped by user', 'AbortError'));
      throw new DOMException('stopped by user', 'AbortError');
    };
    await expect(
      runGuardedToolLoop({
        client,
        model: 'm',
        messages: user,
        tools,
        executors: { lookup },
        guards,
        signal: controller.signal,
      }),
    ).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('ends at maxTurns', async () => {
    const client = await setup([
      toolCallsStep([{ id: 'call_1', name: 'lookup', args: { n: 1 } }]),
      toolCallsStep([{ id: 'call_2', name: 'lookup', args: { n: 2 } }]),
    ]);
    const guards = createGuardPipeline().forRun({ runId: 'r' });
    const result = await runGuardedToolLoop({
      client,
      model: 'm',
      messages: user,
      tools,
      executors: { lookup: counted() },
      guards,
      maxTurns: 2,
    });
    expect(result).toMatchObject({ stopReason: 'max_turns', turns: 2 });
    expect(validateTranscript(result.messages).ok).toBe(true);
  });
});
