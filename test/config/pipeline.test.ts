import { describe, expect, it } from 'vitest';
import { ToolBoundaryError, ToolRegistryError } from '../../src/boundary/errors.js';
import { loadConfig } from '../../src/config/load-config.js';
import { GuardError } from '../../src/errors.js';
import { FuseTrippedError } from '../../src/fuses/errors.js';
import { yaml } from './helpers.js';

const MEMORY_LEDGER = ['transition: { agent_id: agent, policy_version: 1 }', 'action_ledger: { storage: memory }'];

async function load(...lines: string[]) {
  return loadConfig({ text: yaml(...lines) }, { env: {} });
}

function counter() {
  const calls: unknown[] = [];
  return { calls, body: async (args: unknown) => ({ n: calls.push(args), args }) };
}

const scope = { threadId: 't', runId: 'r' };

describe('config.tool: the order fuses → validation → ledger → cache → body', () => {
  it('checks fuses before validation: an ungranted call with bad arguments is a fuse refusal', async () => {
    const config = await load(
      ...MEMORY_LEDGER,
      'tools:',
      '  refund:',
      '    side_effect_class: payment',
      '    permissions: [spend]',
      '    bounded: { schema: { amount: { type: integer } } }',
      'fuses: { permission: { granted: [read] } }',
    );
    const { calls, body } = counter();
    const refund = config.tool('refund', body);

    const error = await config.run(scope, () => refund({ amount: 'lots' })).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(FuseTrippedError);
    expect((error as FuseTrippedError).verdict.fuse).toBe('permission');
    expect(calls).toEqual([]);
    // The refusal is recorded as a denial by the fuses, before validation ever ran; no transition.
    const records = (await config.ledger?.list())?.records ?? [];
    expect(records.map((record) => [record.kind, record.decision?.deniedReasons])).toEqual([
      ['denial', ['permission: permission_denied']],
    ]);
    await config.close();
  });

  it('validates before the ledger: refused arguments claim no transition, only a denial', async () => {
    const config = await load(
      ...MEMORY_LEDGER,
      'tools:',
      '  pay:',
      '    side_effect_class: read',
      '    bounded: { schema: { amount: { type: integer, minimum: 1 } } }',
    );
    const { calls, body } = counter();
    const pay = config.tool('pay', body);

    await expect(pay({ amount: 0 }, { toolCallId: 'c1' })).rejects.toBeInstanceOf(ToolBoundaryError);

    expect(calls).toEqual([]);
    expect((await config.ledger?.list({ kind: 'tool' }))?.records).toEqual([]);
    expect((await config.ledger?.list({ kind: 'denial' }))?.records).toHaveLength(1);
    await config.close();
  });

  it('puts the cache under the ledger: a new transition may be served from the cache, a redispatch from the ledger', async () => {
    const config = await load(
      ...MEMORY_LEDGER,
      'tools:',
      '  lookup:',
      '    side_effect_class: read',
      '    protect: { entity_param: id, ttl: 1m, max_entries: 10 }',
    );
    const { calls, body } = counter();
    const lookup = config.tool('lookup', body);

    const [first, redispatched, fresh] = await config.run(scope, async () => [
      await lookup({ id: 'a' }, { toolCallId: 'c1' }),
      await lookup({ id: 'a' }, { toolCallId: 'c1' }),
      await lookup({ id: 'a' }, { toolCallId: 'c2' }),
    ]);

    expect(calls).toHaveLength(1);
    expect(redispatched).toEqual(first);
    expect(fresh).toEqual(first);
    const records = (await config.ledger?.list())?.records ?? [];
    expect(records.map((r) => [r.ticket, r.outcome])).toEqual(
      expect.arrayContaining([
        ['c1', 'COMPLETED'],
        ['c2', 'COMPLETED'],
      ]),
    );
    await config.close();
  });

  it('validates the output on the way back', async () => {
    const config = await load(
      'tools:',
      '  lookup:',
      '    side_effect_class: read',
      '    bounded:',
      '      schema: {}',
      '      output_schema: { name: { type: string } }',
    );
    const lookup = config.tool('lookup', async () => ({ name: 7 }));

    const error = await lookup({}).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ToolBoundaryError);
    expect((error as ToolBoundaryError).violation).toBe('output_validation_failed');
    await config.close();
  });

  it('`identity: intent` runs one payment for two call ids with the same arguments', async () => {
    const config = await load(...MEMORY_LEDGER, 'tools:', '  pay: { side_effect_class: payment, identity: intent }');
    const { calls, body } = counter();
    const pay = config.tool('pay', body);

    await config.run(scope, async () => {
      await pay({ amount: 5 }, { toolCallId: 'c1' });
      await pay({ amount: 5 }, { toolCallId: 'c2' });
    });

    expect(calls).toHaveLength(1);
    await config.close();
  });

  it('`request_id_param` keys the transition by the argument and refuses a call without it', async () => {
    const config = await load(
      ...MEMORY_LEDGER,
      'tools:',
      '  pay: { side_effect_class: payment, request_id_param: order_id }',
    );
    const { calls, body } = counter();
    const pay = config.tool('pay', body);

    await config.run(scope, async () => {
      await pay({ order_id: 'o-1', amount: 5 }, { toolCallId: 'c1' });
      await pay({ order_id: 'o-1', amount: 5 }, { toolCallId: 'c2' });
    });
    const missing = await pay({ amount: 5 }).catch((e: unknown) => e);

    expect(calls).toHaveLength(1);
    expect((await config.ledger?.list())?.records.map((r) => r.ticket)).toEqual(['o-1']);
    expect(missing).toBeInstanceOf(GuardError);
    expect((missing as GuardError).code).toBe('missing_request_id');
    await config.close();
  });

  it('refuses a repeated call through the loop fuse', async () => {
    const config = await load(
      'tools:',
      '  poll: { side_effect_class: read }',
      'fuses: { loop: { repeat_threshold: 2 } }',
    );
    const poll = config.tool('poll', async () => 'same');

    const error = await config
      .run(scope, async () => {
        await poll({ id: 1 });
        await poll({ id: 1 });
      })
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(FuseTrippedError);
    expect((error as FuseTrippedError).verdict.fuse).toBe('loop');
    await config.close();
  });

  it('lets a read that failed be retried identically within the loop fuse’s retry allowance', async () => {
    const config = await load(
      'tools:',
      '  lookup: { side_effect_class: read }',
      'fuses: { loop: { repeat_threshold: 3 } }',
    );
    let attempts = 0;
    const lookup = config.tool('lookup', async () => {
      attempts += 1;
      if (attempts <= 2) throw new Error('upstream timeout');
      return { found: true };
    });

    const result = await config.run(scope, async () => {
      await expect(lookup({ id: 1 })).rejects.toThrow('upstream timeout');
      await expect(lookup({ id: 1 })).rejects.toThrow('upstream timeout');
      return lookup({ id: 1 }); // the third identical try, after two failures: not a loop
    });

    expect(result).toEqual({ found: true });
    expect(attempts).toBe(3);
    await config.close();
  });

  it('needs a run for fuses: `config.run` or `scope.runId`', async () => {
    const config = await load('tools:', '  poll: { side_effect_class: read }', 'fuses: { loop: {} }');
    const poll = config.tool('poll', async () => 'ok');

    await expect(poll({})).rejects.toThrow(/was called outside `config.run`/);
    await expect(poll({}, { scope: { runId: 'r9' } })).resolves.toBe('ok');
    await config.close();
  });

  it('refuses a tool that is not configured, with a hint', async () => {
    const config = await load('tools:', '  send_payment: {}');

    expect(() => config.tool('send_paymnet', async () => 1)).toThrow(
      'Tool `send_paymnet` is not configured (did you mean `send_payment`?); configured: `send_payment`',
    );
    await config.close();
  });
});

describe('config.instrument and the registry', () => {
  it('wraps configured tools and tasks into a new object and copies entries that are not functions', async () => {
    const config = await load(
      ...MEMORY_LEDGER,
      'task_ledger: {}',
      'tools:',
      '  pay: { side_effect_class: payment }',
      'tasks:',
      '  invoice: { id_from: [invoice_id] }',
    );
    const pay = async () => 'paid';
    const invoiceRuns: unknown[] = [];
    const fns = { pay, invoice: async (args: { invoice_id: string }) => invoiceRuns.push(args), version: 3 };

    const tools = config.instrument(fns);
    await config.run(scope, async () => {
      await tools.invoice({ invoice_id: 'i-1' });
      await tools.invoice({ invoice_id: 'i-1' });
    });

    expect(tools).not.toBe(fns);
    expect(fns.pay).toBe(pay);
    expect(tools.pay).not.toBe(pay);
    expect(tools.version).toBe(3);
    await expect(tools.pay({}, { toolCallId: 'c1' })).resolves.toBe('paid');
    expect(invoiceRuns).toHaveLength(1);
    await config.close();
  });

  it('registers bounded tools for the runner and refuses names the registry does not allow', async () => {
    const config = await load(
      'tools:',
      '  lookup: { side_effect_class: read, bounded: { schema: { id: { type: string } } } }',
      'registry: { auto: true }',
      'runner: { max_llm_retries: 0 }',
    );
    config.tool('lookup', async ({ id }: { id: string }) => `customer ${id}`);

    expect(() => config.tool('delete_repo', async () => 1)).toThrow(ToolRegistryError);
    await expect(config.runner?.call({ id: 'c1', name: 'lookup', args: '{"id":"7"}' })).resolves.toBe('customer 7');
    await config.close();
  });
});
