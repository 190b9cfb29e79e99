import { describe, expect, expectTypeOf, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { GuardError } from '../../src/errors.js';
import type { TaskCallOptions } from '../../src/ledger/types.js';
import { yaml } from './helpers.js';

const HEADER = [
  'transition: { agent_id: agent, policy_version: 1 }',
  'action_ledger: { storage: memory }',
  'task_ledger: {}',
  'tools:',
  '  send_email: { side_effect_class: email }',
  '  lookup_order: { side_effect_class: read }',
  'tasks:',
  '  process_invoice: { id_from: [invoice_id] }',
];

async function load() {
  return loadConfig({ text: yaml(...HEADER) }, { env: {} });
}

const scope = { threadId: 't', runId: 'r' };

describe('config.instrument', () => {
  it('refuses a function whose name is no configured tool or task, naming the near miss', async () => {
    const config = await load();
    const sendMail = async (_args: { to: string }) => 'sent';

    let error: unknown;
    try {
      config.instrument({ sendMail });
    } catch (caught) {
      error = caught;
    }

    expect(error).toBeInstanceOf(GuardError);
    expect((error as GuardError).code).toBe('config_unknown_name');
    expect((error as GuardError).message).toContain('`sendMail`');
    expect((error as GuardError).message).toContain('did you mean `send_email`?');
    await config.close();
  });

  it('finds the snake_case tool of a camelCase name and guards it (the ledger records the call)', async () => {
    const config = await load();
    const sent: string[] = [];
    const tools = config.instrument({ sendEmail: async (args: { to: string }) => sent.push(args.to) });

    await config.run(scope, async () => {
      await tools.sendEmail({ to: 'a@example.com' }, { toolCallId: 'call_1' });
      await tools.sendEmail({ to: 'a@example.com' }, { toolCallId: 'call_1' });
    });

    expect(sent).toEqual(['a@example.com']);
    const records = (await config.ledger?.list())?.records ?? [];
    expect(records.map((r) => r.tool)).toEqual(['send_email']);
    await config.close();
  });

  it('keeps the arguments type and adds the call options (tools and tasks alike)', async () => {
    const config = await load();
    const tools = config.instrument({
      lookup_order: (args: { order_id: string }) => ({ id: args.order_id }),
      process_invoice: async (args: { invoice_id: string }) => args.invoice_id.length,
      retries: 3,
    });

    expectTypeOf(tools.lookup_order).toEqualTypeOf<
      (args: { order_id: string }, options?: TaskCallOptions) => Promise<{ id: string }>
    >();
    expectTypeOf(tools.retries).toEqualTypeOf<number>();
    const found = await config.run(scope, () => tools.lookup_order({ order_id: 'o-1' }, { toolCallId: 'c1' }));
    const length = await config.run(scope, () => tools.process_invoice({ invoice_id: 'i-42' }, { taskId: 'i-42' }));

    expect(found).toEqual({ id: 'o-1' });
    expect(length).toBe(4);
    await config.close();
  });
});

describe('transition.request_identity', () => {
  const lines = () => [
    'transition: { agent_id: agent, policy_version: 1 }',
    'action_ledger: { storage: memory }',
    'tools:',
    '  send_email: { side_effect_class: email }',
  ];

  it('require_explicit refuses a consequential tool called without a call id, before the body runs', async () => {
    const strict = await loadConfig(
      {
        text: yaml(
          'transition: { agent_id: agent, policy_version: 1, request_identity: require_explicit }',
          ...lines().slice(1),
        ),
      },
      { env: {} },
    );
    const sent: unknown[] = [];
    const tools = strict.instrument({ send_email: async (args: { to: string }) => sent.push(args) });

    const error = await strict.run(scope, () => tools.send_email({ to: 'a@example.com' })).catch((e: unknown) => e);
    await strict.run(scope, () => tools.send_email({ to: 'a@example.com' }, { toolCallId: 'call_1' }));

    expect((error as GuardError).code).toBe('missing_call_id');
    expect(sent).toEqual([{ to: 'a@example.com' }]);
    await strict.close();
  });

  it('by default logs the missing call id once through the configured logger', async () => {
    const warnings: string[] = [];
    const config = await loadConfig(
      { text: yaml(...lines()) },
      { env: {}, logger: { warn: (message) => warnings.push(message) } },
    );
    const tools = config.instrument({ send_email: async (_args: { to: string }) => 'sent' });

    await config.run(scope, async () => {
      await tools.send_email({ to: 'a@example.com' });
      await tools.send_email({ to: 'b@example.com' });
    });

    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('Tool `send_email`');
    await config.close();
  });
});

describe('config.instrument and the decision protocol', () => {
  it('writes the fuses and argument verdicts with the claim, then the ledger', async () => {
    const config = await loadConfig(
      {
        text: yaml(
          'transition: { agent_id: agent, policy_version: 1 }',
          'action_ledger: { storage: memory }',
          'tools:',
          '  send_email:',
          '    side_effect_class: email',
          '    bounded: { schema: { to: { type: string } } }',
          'fuses: { loop: { repeat_threshold: 3 } }',
        ),
      },
      { env: {} },
    );
    const tools = config.instrument({ sendEmail: async (args: { to: string }) => args.to });

    await config.run(scope, () => tools.sendEmail({ to: 'a@example.com' }, { toolCallId: 'call_1' }));

    const [record] = (await config.ledger?.list())?.records ?? [];
    expect(record?.decision?.verdicts.map((v) => `${v.verdict} ${v.check}`)).toEqual([
      'allow fuses',
      'allow arguments',
      'allow ledger',
    ]);
    await config.close();
  });
});
