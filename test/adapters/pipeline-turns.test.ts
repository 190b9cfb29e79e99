import { describe, expect, it } from 'vitest';
import { createGuardPipeline } from '../../src/adapters/pipeline.js';
import type { GuardRun } from '../../src/adapters/shared/run-types.js';
import type { ToolCallOutcome } from '../../src/adapters/shared/types.js';
import {
  budgetFuse,
  createFuseBox,
  createLedger,
  createMemoryStorage,
  type Ledger,
  loopFuse,
} from '../../src/index.js';

function memoryLedger(): Ledger {
  return createLedger({ storage: createMemoryStorage(), agentId: 'agent', policyVersion: '1' });
}

function refusalCode(outcome: ToolCallOutcome): string {
  if (outcome.status !== 'refused') throw new Error(`expected a refusal, got ${JSON.stringify(outcome)}`);
  return outcome.code;
}

/** The model is called: a new turn for the fuses. */
function modelTurn(run: GuardRun): void {
  const gate = run.checkModelCall({ model: 'm', messages: [{ role: 'user', content: 'go' }], maxOutputTokens: 10 });
  if (gate.status === 'allowed') run.releaseModelCall(gate.reservation);
}

describe('guard pipeline: runs stop on loop and budget refusals by default', () => {
  it('ends the run at a default loop refusal: its sibling in the turn and the next model call are refused', async () => {
    const run = createGuardPipeline({ fuses: createFuseBox({ loop: loopFuse({ repeatThreshold: 2 }) }) }).forRun({
      runId: 'r1',
    });
    const body = async (): Promise<string> => 'same';
    await run.executeToolCall({ id: 'c1', name: 'poll', args: { q: 1 } }, body);
    modelTurn(run);

    const [repeat, sibling] = await Promise.all([
      run.executeToolCall({ id: 'c2', name: 'poll', args: { q: 1 } }, body),
      run.executeToolCall({ id: 'c3', name: 'other', args: {} }, body),
    ]);

    expect(repeat).toMatchObject({ status: 'refused', code: 'loop_repeat', terminal: true });
    expect(refusalCode(sibling)).toBe('run_stopped');
    expect(run.stopped?.code).toBe('loop_repeat');
    expect(run.checkModelCall({ model: 'm', messages: [], maxOutputTokens: 1 })).toMatchObject({
      status: 'refused',
      refusal: { code: 'run_stopped' },
    });
  });

  it('ends the run at a default budget refusal: no later tool call runs', async () => {
    const fuses = createFuseBox({ budget: budgetFuse({ maxTokens: 100 }) });
    const run = createGuardPipeline({ fuses }).forRun({ runId: 'r1' });

    const gate = run.checkModelCall({ model: 'm', messages: [{ role: 'user', content: 'hi' }], maxOutputTokens: 500 });
    let bodies = 0;
    const after = await run.executeToolCall({ id: 'c1', name: 'lookup', args: {} }, () => ++bodies);

    expect(gate).toMatchObject({ status: 'refused', refusal: { code: 'budget_tokens_exceeded', terminal: true } });
    expect(refusalCode(after)).toBe('run_stopped');
    expect(bodies).toBe(0);
  });
});

describe('guard pipeline: loop counting follows the model turn', () => {
  it('counts a call id the model re-sends every turn, and runs its body once', async () => {
    const pipeline = createGuardPipeline({
      ledger: memoryLedger(),
      fuses: createFuseBox({ loop: loopFuse({ repeatThreshold: 3 }) }),
      tools: { lookup: { sideEffectClass: 'read' } },
    });
    const run = pipeline.forRun({ runId: 'r1' });
    let bodies = 0;
    const lookup = async (): Promise<{ status: string }> => {
      bodies += 1;
      return { status: 'pending' };
    };

    const outcomes: ToolCallOutcome[] = [];
    for (let turn = 0; turn < 3; turn++) {
      modelTurn(run);
      outcomes.push(await run.executeToolCall({ id: 'call_same', name: 'lookup', args: { id: 7 } }, lookup));
    }

    expect(outcomes.map((o) => o.status)).toEqual(['ok', 'ok', 'refused']);
    expect(outcomes[1]).toMatchObject({ source: 'ledger' });
    expect(refusalCode(outcomes[2] as ToolCallOutcome)).toBe('loop_repeat');
    expect(bodies).toBe(1);
    expect(run.stopped?.code).toBe('loop_repeat');
  });

  it('does not count a framework redispatch within a turn, nor one resumed under the same turn id', async () => {
    const run = createGuardPipeline({
      fuses: createFuseBox({ loop: loopFuse({ repeatThreshold: 2 }) }),
    }).forRun({ runId: 'r1' });
    const body = async (): Promise<string> => 'same';
    const call = { id: 'call_1', name: 'lookup', args: { id: 7 } };

    run.beginTurn('msg_1');
    const first = await run.executeToolCall(call, body);
    const redispatch = await run.executeToolCall(call, body);
    run.beginTurn('msg_1');
    const resumed = await run.executeToolCall(call, body);
    run.beginTurn('msg_2');
    const resent = await run.executeToolCall(call, body);

    expect([first, redispatch, resumed].map((o) => o.status)).toEqual(['ok', 'ok', 'ok']);
    expect(refusalCode(resent)).toBe('loop_repeat');
  });

  it('begins a turn from the `turnId` a tool node passes with each call', async () => {
    const run = createGuardPipeline({
      fuses: createFuseBox({ loop: loopFuse({ repeatThreshold: 2 }) }),
    }).forRun({ runId: 'r1' });
    const body = async (): Promise<string> => 'same';
    const call = { id: 'call_1', name: 'lookup', args: { id: 7 } };

    const turnOne = await Promise.all([
      run.executeToolCall(call, body, { turnId: 'msg_1' }),
      run.executeToolCall(call, body, { turnId: 'msg_1' }),
    ]);
    const turnTwo = await run.executeToolCall(call, body, { turnId: 'msg_2' });

    expect(turnOne.map((o) => o.status)).toEqual(['ok', 'ok']);
    expect(refusalCode(turnTwo)).toBe('loop_repeat');
  });

  it('completes a read that throws twice and succeeds on the third identical try', async () => {
    const run = createGuardPipeline({
      ledger: memoryLedger(),
      fuses: createFuseBox({ loop: loopFuse() }),
      tools: { read_file: { sideEffectClass: 'read' } },
    }).forRun({ runId: 'r1' });
    let tries = 0;
    const readFile = async (): Promise<string> => {
      tries += 1;
      if (tries < 3) throw new Error('EAGAIN');
      return 'contents';
    };

    const outcomes: ToolCallOutcome[] = [];
    for (let turn = 0; turn < 3; turn++) {
      modelTurn(run);
      outcomes.push(
        await run.executeToolCall({ id: `call_${turn}`, name: 'read_file', args: { path: 'a' } }, readFile),
      );
    }

    expect(outcomes.map((o) => o.status)).toEqual(['error', 'error', 'ok']);
    expect(outcomes[2]).toMatchObject({ result: 'contents', source: 'tool' });
    expect(run.stopped).toBeNull();
  });

  it('counts a call that keeps failing once its retry allowance is spent', async () => {
    const run = createGuardPipeline({
      fuses: createFuseBox({ loop: loopFuse({ repeatThreshold: 2, retryAllowance: 1 }) }),
    }).forRun({ runId: 'r1' });
    const broken = async (): Promise<never> => {
      throw new Error('down');
    };

    const statuses: string[] = [];
    for (let turn = 0; turn < 4 && run.stopped === null; turn++) {
      modelTurn(run);
      statuses.push((await run.executeToolCall({ id: `c${turn}`, name: 'fetch', args: {} }, broken)).status);
    }

    // One failure forgiven; the second counts, so the third try is the repeat.
    expect(statuses).toEqual(['error', 'error', 'refused']);
  });
});
