import { type Options, tool } from '@anthropic-ai/claude-agent-sdk';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGuardPipeline, guardClaudeAgent } from '../../src/adapters/claude-agent-sdk.js';
import {
  budgetFuse,
  createFuseBox,
  createLedger,
  createMemoryStorage,
  loopFuse,
  permissionFuse,
} from '../../src/index.js';

/** The one tool of a list. */
function only<T>(list: readonly T[]): T {
  const [first] = list;
  if (first === undefined || list.length !== 1) throw new Error(`expected one tool, got ${list.length}`);
  return first;
}

const signal = new AbortController().signal;
const ledger = () => createLedger({ storage: createMemoryStorage(), agentId: 'agent', policyVersion: '1' });

/** A `PreToolUse` input the way Claude Code sends it. */
function pre(id: string, name: string, input: unknown) {
  return {
    hook_event_name: 'PreToolUse' as const,
    session_id: 's',
    transcript_path: '/nonexistent',
    cwd: '/',
    tool_name: name,
    tool_input: input,
    tool_use_id: id,
  };
}

function post(id: string, name: string, input: unknown, response: unknown) {
  return { ...pre(id, name, input), hook_event_name: 'PostToolUse' as const, tool_response: response };
}

describe('guardClaudeAgent hooks', () => {
  it('fit `options.hooks` and `options.canUseTool` of the SDK', () => {
    const agent = guardClaudeAgent({ guards: {}, runId: 'run-1' });
    const options: Options = { hooks: { ...agent.hooks }, canUseTool: agent.canUseTool };
    expect(Object.keys(options.hooks ?? {})).toEqual([
      'UserPromptSubmit',
      'PreToolUse',
      'PostToolUse',
      'PostToolUseFailure',
    ]);
  });

  it('deny a call the permission fuse refuses, with the reason the model reads; the query goes on', async () => {
    const agent = guardClaudeAgent({
      guards: {
        fuses: createFuseBox({
          permission: permissionFuse({ granted: ['read'], tools: { Read: ['read'], Bash: ['shell'] } }),
        }),
      },
      runId: 'run-1',
    });
    const [hook] = agent.hooks.PreToolUse[0]?.hooks ?? [];

    const read = await hook?.(pre('toolu_1', 'Read', { file_path: '/a' }), 'toolu_1', { signal });
    const bash = await hook?.(pre('toolu_2', 'Bash', { command: 'rm -rf /' }), 'toolu_2', { signal });

    expect(read).toEqual({});
    expect(bash).toEqual({
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
        permissionDecisionReason: expect.stringContaining('was NOT executed'),
      },
    });
    expect(bash?.continue).toBeUndefined();
    expect(agent.run.stopped).toBeNull();
  });

  it('end the query (`continue: false`) on the call the loop fuse stops', async () => {
    const agent = guardClaudeAgent({
      guards: { fuses: createFuseBox({ loop: loopFuse({ repeatThreshold: 3 }) }) },
      runId: 'run-1',
    });
    const [hook] = agent.hooks.PreToolUse[0]?.hooks ?? [];
    const [book] = agent.hooks.PostToolUse[0]?.hooks ?? [];
    const outputs = [];
    for (const id of ['toolu_1', 'toolu_2', 'toolu_3']) {
      outputs.push(await hook?.(pre(id, 'Bash', { command: 'gh run view' }), id, { signal }));
      await book?.(post(id, 'Bash', { command: 'gh run view' }, { stdout: 'queued' }), id, { signal });
    }

    expect(outputs.slice(0, 2)).toEqual([{}, {}]);
    expect(outputs[2]).toMatchObject({
      continue: false,
      stopReason: expect.any(String),
      hookSpecificOutput: {
        permissionDecision: 'deny',
        permissionDecisionReason: expect.stringContaining('NOT executed'),
      },
    });
    expect(agent.run.stopped?.code).toBe('loop_repeat');
  });

  it('book built-in results in `PostToolUse`, so a poll whose output changes is progress, not a loop', async () => {
    const agent = guardClaudeAgent({
      guards: { fuses: createFuseBox({ loop: loopFuse({ repeatThreshold: 3 }) }) },
      runId: 'run-1',
    });
    const [hook] = agent.hooks.PreToolUse[0]?.hooks ?? [];
    const [book] = agent.hooks.PostToolUse[0]?.hooks ?? [];
    const outputs = [];
    for (const [n, status] of ['queued', 'running', 'running 50%', 'done'].entries()) {
      const id = `toolu_${n}`;
      outputs.push(await hook?.(pre(id, 'Bash', { command: 'gh run view' }), id, { signal }));
      outputs.push(await book?.(post(id, 'Bash', { command: 'gh run view' }, { stdout: status }), id, { signal }));
    }

    expect(outputs.every((output) => Object.keys(output ?? {}).length === 0)).toBe(true);
    expect(agent.run.stopped).toBeNull();
  });

  it('end the query once the booked usage of the stream passes the budget', async () => {
    const agent = guardClaudeAgent({
      guards: {
        fuses: createFuseBox({
          budget: budgetFuse({ maxUsd: 0.01, price: { inputPer1k: 3, outputPer1k: 15 } }),
        }),
      },
      runId: 'run-1',
    });
    const [hook] = agent.hooks.PreToolUse[0]?.hooks ?? [];
    const assistant = (id: string) => ({
      type: 'assistant',
      message: { id, model: 'claude-test', usage: { input_tokens: 2000, output_tokens: 10 } },
    });

    agent.observe(assistant('msg_1'));
    agent.observe(assistant('msg_1'));
    const after = await hook?.(pre('toolu_1', 'Read', { file_path: '/a' }), 'toolu_1', { signal });

    expect(agent.run.stopped?.code).toBe('budget_usd_exceeded');
    expect(after).toMatchObject({ continue: false, hookSpecificOutput: { permissionDecision: 'deny' } });
  });

  it('book each answer once: its output from stream deltas, and what the stream left out from the result', () => {
    const fuses = createFuseBox({ budget: budgetFuse({ maxTokens: 1_000_000 }) });
    const agent = guardClaudeAgent({ guards: { fuses }, runId: 'run-1' });
    const spent = () => fuses.forRun('run-1').stats().budget?.spentTokens;
    const assistant = (id: string, input: number) => ({
      type: 'assistant',
      message: { id, model: 'claude-test', content: [], usage: { input_tokens: input, output_tokens: 1 } },
    });
    const event = (e: object) => ({ type: 'stream_event', event: e });

    agent.observe(event({ type: 'message_start', message: { id: 'msg_1' } }));
    agent.observe(assistant('msg_1', 1000));
    agent.observe(assistant('msg_1', 1000));
    agent.observe(event({ type: 'message_delta', usage: { output_tokens: 300 } }));
    const streamed = spent();
    agent.observe(assistant('msg_2', 2000));
    const beforeResult = spent();
    agent.observe({ type: 'result', usage: { input_tokens: 3000, output_tokens: 700 } });

    expect([streamed, beforeResult, spent()]).toEqual([1300, 3301, 3700]);
  });

  it('end the query in `PostToolUse` when the next request, with the tool result, would pass the ceiling', async () => {
    const agent = guardClaudeAgent({
      guards: { fuses: createFuseBox({ budget: budgetFuse({ maxTokens: 10_000 }) }) },
      runId: 'run-1',
      maxOutputTokens: 1000,
    });
    const [hook] = agent.hooks.PostToolUse[0]?.hooks ?? [];
    agent.observe({
      type: 'assistant',
      message: {
        id: 'msg_1',
        model: 'claude-test',
        content: [{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: '/a' } }],
        usage: { input_tokens: 3000, output_tokens: 100 },
      },
    });

    const small = await hook?.(post('toolu_1', 'Read', { file_path: '/a' }, 'short'), 'toolu_1', { signal });
    const stoppedBefore = agent.run.stopped;
    const large = await hook?.(post('toolu_2', 'Read', { file_path: '/b' }, 'x'.repeat(20_000)), 'toolu_2', {
      signal,
    });

    expect(small).toEqual({});
    expect(stoppedBefore).toBeNull();
    expect(large).toMatchObject({ continue: false, stopReason: expect.stringMatching(/10000 tokens ceiling/) });
    expect(agent.run.stopped).toMatchObject({ code: 'budget_tokens_exceeded', terminal: true });
  });

  it('rejects an output cap that is not a positive integer', () => {
    expect(() => guardClaudeAgent({ guards: {}, runId: 'run-1', maxOutputTokens: 0 })).toThrow(/maxOutputTokens/);
  });
});

describe('guardClaudeAgent canUseTool', () => {
  it('gives a call the verdict `PreToolUse` gave it, without counting it twice', async () => {
    const agent = guardClaudeAgent({
      guards: {
        fuses: createFuseBox({
          permission: permissionFuse({ granted: [], tools: { Write: ['write'] }, maxDenials: 2 }),
        }),
      },
      runId: 'run-1',
    });
    const [hook] = agent.hooks.PreToolUse[0]?.hooks ?? [];
    const input = { file_path: '/etc/passwd', content: 'x' };

    await hook?.(pre('toolu_1', 'Write', input), 'toolu_1', { signal });
    const answer = await agent.canUseTool('Write', input, { signal, toolUseID: 'toolu_1' });

    expect(answer).toEqual({ behavior: 'deny', message: expect.stringContaining('NOT executed'), interrupt: false });
    expect(agent.run.stopped).toBeNull();
  });

  it('asks the approver for a call the guards allow; anything but `true` refuses', async () => {
    const asked: string[] = [];
    const answers: unknown[] = [true, false, { deny: 'the on-call engineer said no' }];
    const agent = guardClaudeAgent({
      guards: {},
      runId: 'run-1',
      approve: (request) => {
        asked.push(`${request.toolName}:${request.toolUseId}`);
        const next = answers.shift();
        if (next === undefined) throw new Error('approver is down');
        return next as boolean;
      },
    });

    const results = [];
    for (const id of ['toolu_1', 'toolu_2', 'toolu_3', 'toolu_4']) {
      results.push(await agent.canUseTool('Bash', { command: `deploy ${id}` }, { signal, toolUseID: id }));
    }

    expect(asked).toEqual(['Bash:toolu_1', 'Bash:toolu_2', 'Bash:toolu_3', 'Bash:toolu_4']);
    expect(results[0]).toEqual({ behavior: 'allow', updatedInput: { command: 'deploy toolu_1' } });
    expect(results[1]).toMatchObject({ behavior: 'deny', message: expect.stringContaining('it was not approved') });
    expect(results[2]).toMatchObject({
      behavior: 'deny',
      message: expect.stringContaining('on-call engineer said no'),
    });
    expect(results[3]).toMatchObject({ behavior: 'deny', message: expect.stringContaining('could not be asked') });
  });

  it('refuses without asking the approver when the guards refuse, and interrupts a stopped run', async () => {
    let asked = 0;
    const agent = guardClaudeAgent({
      guards: { fuses: createFuseBox({ loop: loopFuse({ repeatThreshold: 2 }) }) },
      runId: 'run-1',
      approve: () => {
        asked++;
        return true;
      },
    });
    const input = { command: 'retry' };

    await agent.canUseTool('Bash', input, { signal, toolUseID: 'toolu_1' });
    const second = await agent.canUseTool('Bash', input, { signal, toolUseID: 'toolu_2' });

    expect(asked).toBe(1);
    expect(second).toMatchObject({ behavior: 'deny', interrupt: true });
  });
});

describe('guardClaudeAgent in-process tools', () => {
  function chargeTool() {
    const charges: number[] = [];
    const charge = tool('charge', 'Charge a card', { amount: z.number() }, async ({ amount }) => {
      charges.push(amount);
      return { content: [{ type: 'text' as const, text: `charged ${amount} (#${charges.length})` }] };
    });
    return { charge, charges };
  }
  const extra = (id: string) => ({ signal, _meta: { 'claudecode/toolUseId': id }, requestId: 1 });

  it('run the body through the ledger: a redispatched tool_use id charges once', async () => {
    const pipeline = createGuardPipeline({ ledger: ledger() });
    const agent = guardClaudeAgent({ guards: pipeline, runId: 'run-1' });
    const { charge, charges } = chargeTool();
    const guarded = only(agent.guardTools('pay', [charge]));

    const first = await guarded.handler({ amount: 40 }, extra('toolu_pay'));
    const again = await guarded.handler({ amount: 40 }, extra('toolu_pay'));

    expect(charges).toEqual([40]);
    expect(first).toEqual({ content: [{ type: 'text', text: 'charged 40 (#1)' }] });
    expect(again).toEqual(first);
    const { records } = (await pipeline.ledger?.list()) ?? { records: [] };
    expect(records).toMatchObject([{ tool: 'charge', ticket: 'toolu_pay', outcome: 'COMPLETED' }]);
  });

  it('answer a refused call with an error result for the model; the body never runs', async () => {
    const agent = guardClaudeAgent({
      guards: {
        ledger: ledger(),
        fuses: createFuseBox({
          permission: permissionFuse({ granted: ['read'], tools: { charge: ['spend_money'] } }),
        }),
      },
      runId: 'run-1',
    });
    const { charge, charges } = chargeTool();
    const guarded = only(agent.guardTools('pay', [charge]));

    const answer = await guarded.handler({ amount: 40 }, extra('toolu_pay'));

    expect(charges).toEqual([]);
    expect(answer).toEqual({
      content: [{ type: 'text', text: expect.stringContaining('NOT executed') }],
      isError: true,
    });
  });

  it('checks a call once across `PreToolUse` and the body', async () => {
    const agent = guardClaudeAgent({
      guards: { ledger: ledger(), fuses: createFuseBox({ loop: loopFuse({ repeatThreshold: 2 }) }) },
      runId: 'run-1',
    });
    const { charge, charges } = chargeTool();
    const guarded = only(agent.guardTools('pay', [charge]));
    const [hook] = agent.hooks.PreToolUse[0]?.hooks ?? [];

    const decision = await hook?.(pre('toolu_1', 'mcp__pay__charge', { amount: 5 }), 'toolu_1', { signal });
    await guarded.handler({ amount: 5 }, extra('toolu_1'));

    expect(decision).toEqual({});
    expect(charges).toEqual([5]);
    expect(agent.run.stopped).toBeNull();
  });

  it('counts a tool_use id the model re-sends after its result, and stops the loop', async () => {
    const agent = guardClaudeAgent({
      guards: { ledger: ledger(), fuses: createFuseBox({ loop: loopFuse({ repeatThreshold: 3 }) }) },
      runId: 'run-1',
    });
    const { charge, charges } = chargeTool();
    const guarded = only(agent.guardTools('pay', [charge]));
    const [hook] = agent.hooks.PreToolUse[0]?.hooks ?? [];
    const decisions = [];
    for (let turn = 0; turn < 3; turn++) {
      decisions.push(await hook?.(pre('toolu_same', 'mcp__pay__charge', { amount: 5 }), 'toolu_same', { signal }));
      if (decisions.at(-1)?.continue === undefined) await guarded.handler({ amount: 5 }, extra('toolu_same'));
    }

    expect(charges).toEqual([5]);
    expect(decisions.slice(0, 2)).toEqual([{}, {}]);
    expect(decisions[2]).toMatchObject({ continue: false });
    expect(agent.run.stopped?.code).toBe('loop_repeat');
  });

  it('books a failed body, so an identical retry is a retry, not a loop', async () => {
    const agent = guardClaudeAgent({
      guards: { fuses: createFuseBox({ loop: loopFuse({ repeatThreshold: 3 }) }) },
      runId: 'run-1',
    });
    let attempts = 0;
    const lookup = tool('lookup', 'Look up an order', { id: z.string() }, async ({ id }) => {
      attempts++;
      if (attempts < 3) throw new Error('gateway timeout');
      return { content: [{ type: 'text' as const, text: `${id}: shipped` }] };
    });
    const guarded = only(agent.guardTools('shop', [lookup]));
    const [hook] = agent.hooks.PreToolUse[0]?.hooks ?? [];
    const answers = [];
    for (const id of ['toolu_1', 'toolu_2', 'toolu_3']) {
      expect(await hook?.(pre(id, 'mcp__shop__lookup', { id: 'o_7' }), id, { signal })).toEqual({});
      answers.push(await guarded.handler({ id: 'o_7' }, extra(id)));
    }

    expect(attempts).toBe(3);
    expect(answers.map((answer) => answer.isError ?? false)).toEqual([true, true, false]);
    expect(agent.run.stopped).toBeNull();
  });

  it('refuses two tools of one name on two servers', () => {
    const agent = guardClaudeAgent({ guards: {}, runId: 'run-1' });
    agent.guardTools('pay', [chargeTool().charge]);
    expect(() => agent.guardTools('billing', [chargeTool().charge])).toThrow(/Two in-process tools are named `charge`/);
  });

  it('rejects an empty server name', () => {
    const agent = guardClaudeAgent({ guards: {}, runId: 'run-1' });
    expect(() => agent.guardTools('' as string, [])).toThrow(/server/);
  });
});
