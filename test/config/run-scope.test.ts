import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { InvalidArgumentError } from '../../src/invalid-argument.js';
import { yaml } from './helpers.js';

const HEADER = ['transition: { agent_id: agent, policy_version: 1 }', 'action_ledger: { storage: memory }'];

async function load(...lines: string[]) {
  return loadConfig({ text: yaml(...HEADER, ...lines) }, { env: {} });
}

function counter() {
  const calls: unknown[] = [];
  return { calls, body: async (args: unknown) => ({ n: calls.push(args) }) };
}

describe('config.run without a run id (mycelium-runtime’s `config.run(thread_id)`)', () => {
  it('runs, with the thread id as the run id', async () => {
    const config = await load('tools: { lookup: { side_effect_class: read } }');
    const seen = await config.run({ threadId: 'thread-1' }, (run) => ({ threadId: run.threadId, runId: run.runId }));
    expect(seen).toEqual({ threadId: 'thread-1', runId: 'thread-1' });
    await config.close();
  });

  it('dedupes a call redispatched in a later run of the thread: the payment runs once', async () => {
    const config = await load('tools: { send_payment: { side_effect_class: payment } }');
    const { calls, body } = counter();
    const pay = config.tool('send_payment', body);
    const call = () => pay({ amount: 100 }, { toolCallId: 'call_abc' });

    const first = await config.run({ threadId: 'thread-1' }, call);
    const again = await config.run({ threadId: 'thread-1' }, call);

    expect(calls).toHaveLength(1);
    expect(again).toEqual(first);
    await config.close();
  });

  it('keeps runs apart when each has its own run id', async () => {
    const config = await load('tools: { send_payment: { side_effect_class: payment } }');
    const { calls, body } = counter();
    const pay = config.tool('send_payment', body);
    const call = () => pay({ amount: 100 }, { toolCallId: 'call_abc' });

    await config.run({ threadId: 'thread-1', runId: 'run-1' }, call);
    await config.run({ threadId: 'thread-1', runId: 'run-2' }, call);

    expect(calls).toHaveLength(2);
    await config.close();
  });

  it('gives each run its own fuse state: a repeat in the next run is not a loop', async () => {
    const config = await load(
      'tools: { lookup: { side_effect_class: read } }',
      'fuses: { loop: { repeat_threshold: 2 } }',
    );
    const { calls, body } = counter();
    const lookup = config.tool('lookup', body);

    await config.run({ threadId: 't' }, () => lookup({ q: 'x' }, { toolCallId: 'c1' }));
    await config.run({ threadId: 't' }, () => lookup({ q: 'x' }, { toolCallId: 'c2' }));
    // Within one run the same repeat is refused.
    const refused = await config
      .run({ threadId: 't' }, async () => {
        await lookup({ q: 'x' }, { toolCallId: 'c3' });
        await lookup({ q: 'x' }, { toolCallId: 'c4' });
      })
      .catch((error: unknown) => error);

    expect(calls).toHaveLength(3);
    expect((refused as { code?: string }).code).toBe('fuse_tripped');
    await config.close();
  });

  it('lets a run of the thread go on after another run of it ends', async () => {
    const config = await load('tools: { lookup: { side_effect_class: read } }', 'fuses: { loop: {} }');
    const { calls, body } = counter();
    const lookup = config.tool('lookup', body);
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });

    const long = config.run({ threadId: 't' }, async () => {
      await gate;
      return lookup({ q: 'late' }, { toolCallId: 'late' });
    });
    await config.run({ threadId: 't' }, () => lookup({ q: 'early' }, { toolCallId: 'early' }));
    release();

    await expect(long).resolves.toEqual({ n: 2 });
    expect(calls).toHaveLength(2);
    await config.close();
  });

  it.each([
    ['an empty run id', { threadId: 't', runId: '' }, 'scope.runId'],
    ['a run id that is not a string', { threadId: 't', runId: 7 }, 'scope.runId'],
    ['no thread id', { runId: 'r' }, 'scope.threadId'],
  ])('refuses %s', async (_, scope, field) => {
    const config = await load('tools: {}');
    const error = await config.run(scope as never, () => 1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as Error).message).toContain(field);
    await config.close();
  });
});
