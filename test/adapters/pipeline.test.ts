import { describe, expect, it } from 'vitest';
import { createGuardPipeline } from '../../src/adapters/pipeline.js';
import type { GuardEvent, ToolCallOutcome } from '../../src/adapters/shared/types.js';
import {
  budgetFuse,
  createFuseBox,
  createLedger,
  createMemoryStorage,
  createToolRegistry,
  type Ledger,
  loopFuse,
  permissionFuse,
} from '../../src/index.js';

function memoryLedger(): Ledger {
  return createLedger({ storage: createMemoryStorage(), agentId: 'agent', policyVersion: '1' });
}

function counter<R>(result: R): { (args: unknown): Promise<R>; calls: unknown[] } {
  const calls: unknown[] = [];
  const fn = async (args: unknown): Promise<R> => {
    calls.push(args);
    return result;
  };
  return Object.assign(fn, { calls });
}

function expectRefused(outcome: ToolCallOutcome): Extract<ToolCallOutcome, { status: 'refused' }> {
  if (outcome.status !== 'refused') throw new Error(`expected a refusal, got ${JSON.stringify(outcome)}`);
  expect(outcome.message).toMatch(/NOT/);
  return outcome;
}

describe('createGuardPipeline: order and outcomes', () => {
  it('runs an allowed call with validated arguments, the call id and the run scope', async () => {
    const run = createGuardPipeline({
      tools: { lookup: { sideEffectClass: 'read', schema: { id: { type: 'string' } } } },
    }).forRun({ threadId: 't1', runId: 'r1' });
    let seen: unknown;
    const outcome = await run.executeToolCall({ id: 'call_1', name: 'lookup', argsText: '{"id":"o_1"}' }, (a, c) => {
      seen = { a, c: { toolCallId: c.toolCallId, scope: c.scope } };
      return { found: true };
    });
    expect(outcome).toEqual({ status: 'ok', result: { found: true }, source: 'tool' });
    expect(seen).toEqual({ a: { id: 'o_1' }, c: { toolCallId: 'call_1', scope: { threadId: 't1', runId: 'r1' } } });
  });

  it('refuses at the registry before the fuses see the call', async () => {
    const fuses = createFuseBox({ loop: loopFuse({ repeatThreshold: 2 }) });
    const run = createGuardPipeline({ fuses, registry: createToolRegistry({ allowed: ['lookup'] }) }).forRun({
      runId: 'r1',
    });
    const body = counter('x');
    const outcome = expectRefused(await run.executeToolCall({ id: 'c1', name: 'delete_repo', args: {} }, body));
    expect(outcome).toMatchObject({ stage: 'registry', code: 'tool_registry_unknown_tool', terminal: false });
    expect(fuses.log).toEqual([]);
    expect(body.calls).toEqual([]);
  });

  it('refuses a tool the framework has no body for', async () => {
    const run = createGuardPipeline({ tools: { lookup: {} } }).forRun({ runId: 'r1' });
    const outcome = expectRefused(await run.executeToolCall({ id: 'c1', name: 'nope', args: {} }, undefined));
    expect(outcome.code).toBe('unknown_tool');
    expect(outcome.message).toContain('The tool `nope` does not exist');
  });

  it('refuses unparseable argument text before the fuses', async () => {
    const fuses = createFuseBox({ loop: loopFuse({ repeatThreshold: 2 }) });
    const run = createGuardPipeline({ fuses }).forRun({ runId: 'r1' });
    const outcome = expectRefused(await run.executeToolCall({ id: 'c1', name: 'f', argsText: '{oops' }, counter(1)));
    expect(outcome).toMatchObject({ stage: 'arguments', code: 'tool_boundary_violation' });
    expect(fuses.log).toEqual([]);
  });

  it('refuses invalid arguments before any transition is claimed', async () => {
    const ledger = memoryLedger();
    const run = createGuardPipeline({ ledger, tools: { pay: { schema: { amount: { type: 'number' } } } } }).forRun({
      runId: 'r1',
    });
    const body = counter('paid');
    const outcome = expectRefused(await run.executeToolCall({ id: 'c1', name: 'pay', args: { amount: 'ten' } }, body));
    expect(outcome.stage).toBe('arguments');
    expect(body.calls).toEqual([]);
    // No transition is claimed; the refusal is kept as a denial record of its own.
    expect((await ledger.list({ kind: 'tool' })).records).toEqual([]);
    expect((await ledger.list({ kind: 'denial' })).records.map((d) => d.decision?.verdicts)).toEqual([
      [{ check: 'arguments', verdict: 'deny', reason: 'tool_boundary_violation' }],
    ]);
  });

  it('reports a throwing body as a failure that ran', async () => {
    const run = createGuardPipeline({ ledger: memoryLedger() }).forRun({ runId: 'r1' });
    const outcome = await run.executeToolCall({ id: 'c1', name: 'f', args: {} }, () => {
      throw new Error('gateway down');
    });
    expect(outcome).toMatchObject({ status: 'error', executed: true, message: 'The call to `f` failed: gateway down' });
  });
});

describe('createGuardPipeline: fuses and the stop latch', () => {
  it('refuses a permission denial and stops the run on a terminal one, siblings included', async () => {
    const fuses = createFuseBox({
      permission: permissionFuse({ granted: ['read'], tools: { lookup: ['read'], refund: ['spend'] }, maxDenials: 1 }),
    });
    const run = createGuardPipeline({ fuses }).forRun({ runId: 'r1' });
    const body = counter('ok');
    const [refund, lookup] = await Promise.all([
      run.executeToolCall({ id: 'c1', name: 'refund', args: { amount: 40 } }, body),
      run.executeToolCall({ id: 'c2', name: 'lookup', args: { id: 1 } }, body),
    ]);
    expect(expectRefused(refund)).toMatchObject({ stage: 'fuses', code: 'permission_denied', terminal: true });
    expect(expectRefused(lookup)).toMatchObject({ code: 'run_stopped', terminal: true });
    expect(body.calls).toEqual([]);
    expect(run.stopped?.code).toBe('permission_denied');
    expect(run.checkModelCall({ model: 'gpt-4o', messages: [] }).status).toBe('refused');
    run.reset();
    expect(run.stopped).toBeNull();
    expect((await run.executeToolCall({ id: 'c3', name: 'lookup', args: { id: 1 } }, body)).status).toBe('ok');
  });

  it('makes every refusal of a terminal fuse stop the run', async () => {
    const fuses = createFuseBox({ loop: loopFuse({ repeatThreshold: 2, terminal: false }) });
    const run = createGuardPipeline({ fuses, terminalFuses: ['loop'] }).forRun({ runId: 'r1' });
    const body = counter('same');
    await run.executeToolCall({ id: 'c1', name: 'poll', args: { q: 1 } }, body);
    const second = expectRefused(await run.executeToolCall({ id: 'c2', name: 'poll', args: { q: 1 } }, body));
    expect(second).toMatchObject({ code: 'loop_repeat', terminal: true });
    expect(second.verdict?.terminal).toBe(false);
    const third = expectRefused(await run.executeToolCall({ id: 'c3', name: 'other', args: {} }, body));
    expect(third.code).toBe('run_stopped');
    expect(body.calls).toHaveLength(1);
  });

  it('latches a terminal-fuse refusal before a parallel sibling is checked', async () => {
    const fuses = createFuseBox({ loop: loopFuse({ repeatThreshold: 2 }) });
    const run = createGuardPipeline({ fuses, terminalFuses: ['loop'] }).forRun({ runId: 'r1' });
    const body = counter('same');
    await run.executeToolCall({ id: 'c1', name: 'poll', args: { q: 1 } }, body);
    const [repeat, sibling] = await Promise.all([
      run.executeToolCall({ id: 'c2', name: 'poll', args: { q: 1 } }, body),
      run.executeToolCall({ id: 'c3', name: 'other', args: {} }, body),
    ]);
    expect(expectRefused(repeat).code).toBe('loop_repeat');
    expect(expectRefused(sibling).code).toBe('run_stopped');
    expect(body.calls).toHaveLength(1);
  });

  it('gates model calls on the budget and books usage against the reservation', () => {
    const fuses = createFuseBox({ budget: budgetFuse({ maxTokens: 200, terminal: false }) });
    const run = createGuardPipeline({ fuses }).forRun({ runId: 'r1' });
    const messages = [{ role: 'user', content: 'hi' }];
    expect(run.checkModelCall({ model: 'm', messages, maxOutputTokens: 500 })).toMatchObject({
      status: 'refused',
      refusal: { stage: 'model', code: 'budget_tokens_exceeded', terminal: false },
    });
    const gate = run.checkModelCall({ model: 'm', messages, maxOutputTokens: 50 });
    if (gate.status !== 'allowed') throw new Error('expected an allowed call');
    expect(gate.reservation?.tokens).toBeGreaterThan(50);
    const booking = run.recordModelUsage({ prompt_tokens: 150, completion_tokens: 60 }, gate.reservation);
    expect(booking?.verdict).toMatchObject({ allowed: false, terminal: true });
    expect(run.stopped?.code).toBe('budget_tokens_exceeded');
  });
});

describe('createGuardPipeline: ledger and cache', () => {
  it('runs the body once per call id and returns the stored result on a redispatch', async () => {
    const run = createGuardPipeline({ ledger: memoryLedger() }).forRun({ threadId: 't', runId: 'r' });
    const body = counter({ charged: 40 });
    const call = { id: 'call_1', name: 'charge', args: { amount: 40 } };
    expect(await run.executeToolCall(call, body)).toMatchObject({ status: 'ok', source: 'tool' });
    expect(await run.executeToolCall(call, body)).toEqual({ status: 'ok', result: { charged: 40 }, source: 'ledger' });
    expect(body.calls).toHaveLength(1);
    await run.executeToolCall({ ...call, id: 'call_2' }, body);
    expect(body.calls).toHaveLength(2);
  });

  it('counts a redispatched call id once in the fuses', async () => {
    const fuses = createFuseBox({
      loop: loopFuse({ repeatThreshold: 2 }),
      permission: permissionFuse({ granted: ['pay'], tools: { pay: ['pay'], refund: ['refund'] }, maxDenials: 2 }),
    });
    const run = createGuardPipeline({ fuses, ledger: memoryLedger() }).forRun({ runId: 'r' });
    const body = counter('paid');
    const pay = { id: 'c1', name: 'pay', args: { amount: 5 } };
    const refund = { id: 'c2', name: 'refund', args: {} };
    for (let dispatch = 0; dispatch < 3; dispatch++) {
      expect(await run.executeToolCall(pay, body)).toMatchObject({ status: 'ok' });
      expect(expectRefused(await run.executeToolCall(refund, body))).toMatchObject({
        code: 'permission_denied',
        terminal: false,
      });
    }
    expect(body.calls).toHaveLength(1);
    expect(fuses.log.filter((event) => event.type === 'tool_call')).toHaveLength(2);
    expect(expectRefused(await run.executeToolCall({ ...pay, id: 'c3' }, body)).code).toBe('loop_repeat');
  });

  it('refuses a call id reused with other arguments', async () => {
    const run = createGuardPipeline({ ledger: memoryLedger() }).forRun({ runId: 'r' });
    const body = counter('ok');
    await run.executeToolCall({ id: 'c1', name: 'send', args: { to: 'a' } }, body);
    const outcome = expectRefused(await run.executeToolCall({ id: 'c1', name: 'send', args: { to: 'b' } }, body));
    expect(outcome).toMatchObject({ stage: 'ledger', code: 'ledger_identity_conflict' });
    expect(body.calls).toHaveLength(1);
  });

  it('never runs a write again after its output failed validation', async () => {
    const ledger = memoryLedger();
    const run = createGuardPipeline({
      ledger,
      tools: { keyed: { sideEffectClass: 'keyed_mutate', outputSchema: { id: { type: 'string' } } } },
    }).forRun({ runId: 'r' });
    const body = counter({ id: 7 });
    const call = { id: 'c1', name: 'keyed', args: { amount: 1 } };
    const first = await run.executeToolCall(call, body);
    expect(first).toMatchObject({ status: 'error', executed: true });
    expect(first.status === 'error' && first.message).toMatch(/WAS executed/);
    expect(expectRefused(await run.executeToolCall(call, body)).code).toBe('ledger_hard_block');
    expect(body.calls).toHaveLength(1);
    expect((await ledger.list()).records[0]?.boundary).toBe('crossed');
  });

  it('serves a cached read for a new call id within its TTL', async () => {
    const run = createGuardPipeline({
      ledger: memoryLedger(),
      tools: { customer: { sideEffectClass: 'read', cache: { ttlMs: 60_000, maxEntries: 10, entityParam: 'id' } } },
    }).forRun({ runId: 'r' });
    const body = counter({ name: 'Ada' });
    expect(await run.executeToolCall({ id: 'c1', name: 'customer', args: { id: 7 } }, body)).toMatchObject({
      source: 'tool',
    });
    expect(await run.executeToolCall({ id: 'c2', name: 'customer', args: { id: 7 } }, body)).toEqual({
      status: 'ok',
      result: { name: 'Ada' },
      source: 'cache',
    });
    expect(body.calls).toHaveLength(1);
  });

  it('refuses a cache on a tool that is not a read', () => {
    expect(() =>
      createGuardPipeline({ tools: { pay: { sideEffectClass: 'payment', cache: { ttlMs: 1, maxEntries: 1 } } } }),
    ).toThrow(/caches `read` tools only/);
  });
});

describe('createGuardPipeline: runs and events', () => {
  it('returns the same run for the same ids until it ends', () => {
    const pipeline = createGuardPipeline();
    const run = pipeline.forRun({ threadId: 't', runId: 'r' });
    expect(pipeline.forRun({ threadId: 't', runId: 'r' })).toBe(run);
    expect(pipeline.forRun({ threadId: 'u', runId: 'r' })).not.toBe(run);
    run.end();
    expect(pipeline.forRun({ threadId: 't', runId: 'r' })).not.toBe(run);
  });

  it('ends the fuse run only when no node of the run is left', async () => {
    const fuses = createFuseBox({ loop: loopFuse({ repeatThreshold: 2 }) });
    const pipeline = createGuardPipeline({ fuses });
    const agent = pipeline.forRun({ runId: 'r', node: 'agent' });
    const tools = pipeline.forRun({ runId: 'r', node: 'tools' });
    agent.end();
    expect((await tools.executeToolCall({ id: 'c1', name: 'f', args: {} }, () => 1)).status).toBe('ok');
    const fuseRun = fuses.forRun('r');
    tools.end();
    expect(fuses.forRun('r')).not.toBe(fuseRun);
  });

  it('reports outcomes and repairs, and ignores a throwing hook', async () => {
    const events: GuardEvent[] = [];
    const run = createGuardPipeline({
      onEvent: (event) => {
        events.push(event);
        throw new Error('sink down');
      },
    }).forRun({ runId: 'r' });
    await run.executeToolCall({ id: 'c1', name: 'f', args: {} }, () => 1);
    const repaired = run.repairTranscript([
      { role: 'user', content: 'hi' },
      { role: 'tool', tool_call_id: 'orphan', content: 'x' },
    ]);
    expect(repaired).toEqual([{ role: 'user', content: 'hi' }]);
    expect(events.map((event) => event.type)).toEqual(['tool_call', 'transcript_repair']);
  });
});
