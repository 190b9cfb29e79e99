import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { GuardError } from '../../src/errors.js';
import { effectStateOf } from '../../src/ledger/decision.js';
import { LEDGER_HEADER, useTempDir, yaml } from './helpers.js';

const tempDir = useTempDir();

async function load(cwd: string, ...lines: string[]) {
  return loadConfig({ text: yaml(...LEDGER_HEADER, ...lines) }, { env: {}, cwd });
}

async function refusal(call: Promise<unknown>): Promise<GuardError> {
  const error: unknown = await call.catch((reason: unknown) => reason);
  if (!(error instanceof GuardError)) throw new Error(`expected a refusal, got ${String(error)}`);
  return error;
}

describe('a configured tool refused by its checks leaves a durable denial record', () => {
  it('a loop fuse refusal: one denial, the transition unclaimed, and the record outlives the process', async () => {
    const cwd = tempDir();
    const lines = [
      'tools: { send_payment: { side_effect_class: payment } }',
      'fuses: { loop: { repeat_threshold: 3, terminal: false } }',
    ];
    const config = await load(cwd, ...lines);
    const charges: unknown[] = [];
    const pay = config.tool('send_payment', async (args: unknown) => {
      charges.push(args);
      return { status: 'paid' };
    });
    await config.run({ threadId: 't' }, async () => {
      await pay({ amount: 5 }, { toolCallId: 'c1' });
      await pay({ amount: 5 }, { toolCallId: 'c2' });
      const error = await refusal(pay({ amount: 5 }, { toolCallId: 'c3' }));
      expect(error.code).toBe('fuse_tripped');
    });
    expect(charges).toHaveLength(2);
    await config.close();

    const reopened = await load(cwd, ...lines);
    const ledger = reopened.ledger;
    if (ledger === undefined) throw new Error('no ledger');
    const denials = (await ledger.list({ kind: 'denial' })).records;
    expect(denials).toHaveLength(1);
    const [denial] = denials;
    expect(denial?.tool).toBe('send_payment');
    expect(denial?.decision?.verdicts).toContainEqual({ check: 'fuses', verdict: 'deny', reason: 'loop: loop_repeat' });
    expect(denial === undefined ? null : effectStateOf(denial)).toBe('ABORTED');
    // The refused call's own transition was never claimed: only the two allowed calls hold one.
    expect((await ledger.list({ kind: 'tool' })).records).toHaveLength(2);
    expect(await ledger.get(denial?.refusedTransition ?? '')).toBeNull();
    await reopened.close();
  });

  it('an argument refusal of a bounded tool: a denial by `arguments`; once valid, the call runs once', async () => {
    const cwd = tempDir();
    const config = await load(
      cwd,
      'tools:',
      '  send_payment:',
      '    side_effect_class: payment',
      '    bounded: { schema: { amount: { type: number, required: true } } }',
    );
    const charges: unknown[] = [];
    const pay = config.tool('send_payment', async (args: unknown) => charges.push(args));
    const error = await refusal(pay({ amount: 'lots' }, { toolCallId: 'c1' }));
    expect(error.code).toBe('tool_boundary_violation');
    await pay({ amount: 5 }, { toolCallId: 'c1' });
    await pay({ amount: 5 }, { toolCallId: 'c1' });
    expect(charges).toEqual([{ amount: 5 }]);

    const denials = (await config.ledger?.list({ kind: 'denial' }))?.records ?? [];
    expect(denials.map((record) => record.decision?.deniedReasons)).toEqual([['tool_boundary_violation']]);
    await config.close();
  });

  it('a tool outside the ledger leaves nothing', async () => {
    const cwd = tempDir();
    const config = await load(
      cwd,
      '  tools: [send_payment]',
      'tools: { send_payment: { side_effect_class: payment }, lookup: { side_effect_class: read } }',
      'fuses: { loop: { repeat_threshold: 3, terminal: false } }',
    );
    const lookup = config.tool('lookup', async () => 'found');
    await config.run({ threadId: 't' }, async () => {
      await lookup({ q: 'x' }, { toolCallId: 'c1' });
      await lookup({ q: 'x' }, { toolCallId: 'c2' });
      await refusal(lookup({ q: 'x' }, { toolCallId: 'c3' }));
    });
    expect((await config.ledger?.list({}))?.records).toEqual([]);
    await config.close();
  });
});
