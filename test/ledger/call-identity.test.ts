import { describe, expect, it } from 'vitest';
import { GuardError } from '../../src/index.js';
import { collectingLogger, newLedger, rejectionOf } from './ledger-helpers.js';

function counted() {
  const runs: unknown[] = [];
  return { runs, body: async (args: { amount: number }) => runs.push(args) };
}

describe('call ids of a ledgered tool', () => {
  it.each([
    ['toolCallId', '', 'an empty string'],
    ['toolCallId', 42, '`42` (number)'],
    ['requestId', '', 'an empty string'],
    ['externalOperationRef', '', 'an empty string'],
    ['externalOperationRef', null, '`null` (null)'],
  ])('refuses %s %j before anything is claimed', async (option, value, said) => {
    const ledger = newLedger();
    const { runs, body } = counted();
    const pay = ledger.tool({ name: 'pay', sideEffectClass: 'read' }, body);

    const error = await rejectionOf(pay({ amount: 1 }, { [option]: value } as { toolCallId?: string }));

    expect(error).toBeInstanceOf(GuardError);
    expect((error as GuardError).code).toBe('invalid_call_id');
    expect((error as GuardError).message).toContain(`\`${option}\``);
    expect((error as GuardError).message).toContain(said);
    expect(runs).toEqual([]);
    expect((await ledger.list()).records).toEqual([]);
  });

  it('says once per tool, through the logger, that a consequential call came without an id', async () => {
    const logger = collectingLogger();
    const ledger = newLedger({ logger });
    const { body } = counted();
    const pay = ledger.tool({ name: 'pay', sideEffectClass: 'payment' }, body);
    const refund = ledger.tool({ name: 'refund', sideEffectClass: 'irreversible' }, body);

    await ledger.run({ runId: 'r' }, async () => {
      await pay({ amount: 1 });
      await pay({ amount: 2 });
      await refund({ amount: 3 });
    });

    const warnings = logger.entries.filter((entry) => entry.level === 'warn').map((entry) => entry.message);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain('Tool `pay`');
    expect(warnings[0]).toContain('without a `toolCallId` or `requestId`');
    expect(warnings[1]).toContain('Tool `refund`');
  });

  it('says nothing for a read, an intent-keyed tool, a call with an id or a dispatch id', async () => {
    const logger = collectingLogger();
    const ledger = newLedger({ logger });
    const { body } = counted();
    const lookup = ledger.tool({ name: 'lookup', sideEffectClass: 'read' }, body);
    const charge = ledger.tool({ name: 'charge', sideEffectClass: 'payment', identity: 'intent' }, body);
    const pay = ledger.tool({ name: 'pay', sideEffectClass: 'payment' }, body);

    await ledger.run({ runId: 'r' }, async () => {
      await lookup({ amount: 1 });
      await charge({ amount: 1 });
      await pay({ amount: 1 }, { toolCallId: 'call_1' });
      await pay({ amount: 2 }, { requestId: 'order-2' });
    });
    await ledger.run({ runId: 'r', dispatchId: 'd-1' }, () => pay({ amount: 3 }));

    expect(logger.entries.filter((entry) => entry.level === 'warn')).toEqual([]);
  });

  it("with requestIdentity 'require_explicit', refuses a consequential call without an id and runs one with an id", async () => {
    const ledger = newLedger({ requestIdentity: 'require_explicit' });
    const { runs, body } = counted();
    const pay = ledger.tool({ name: 'pay', sideEffectClass: 'non_idempotent_mutate' }, body);

    const error = await rejectionOf(ledger.run({ runId: 'r' }, () => pay({ amount: 1 })));
    await ledger.run({ runId: 'r' }, () => pay({ amount: 1 }, { toolCallId: 'call_1' }));

    expect(error).toBeInstanceOf(GuardError);
    expect((error as GuardError).code).toBe('missing_call_id');
    expect(runs).toEqual([{ amount: 1 }]);
    expect((await ledger.list()).records).toHaveLength(1);
  });

  it('refuses an unknown requestIdentity', () => {
    expect(() => newLedger({ requestIdentity: 'sometimes' as 'allow_derived' })).toThrow(/`requestIdentity` must be/);
  });
});

describe('a spec wrapped call by call', () => {
  it('keys one call the same through a wrapper made once and through a new wrapper per call', async () => {
    const ledger = newLedger();
    const spec = Object.freeze({ name: 'pay', sideEffectClass: 'idempotent_mutate' as const });
    const { runs, body } = counted();

    await ledger.tool(spec, body)({ amount: 1 }, { toolCallId: 'c1' });
    await ledger.tool(spec, body)({ amount: 1 }, { toolCallId: 'c1' });
    const once = ledger.tool(spec, body);
    await once({ amount: 1 }, { toolCallId: 'c1' });

    expect(runs).toEqual([{ amount: 1 }]);
    expect((await ledger.list()).records).toHaveLength(1);
  });

  it('reads a spec that is not frozen again at every wrap, so a changed class applies', async () => {
    const ledger = newLedger();
    const spec: { name: string; sideEffectClass: 'read' | 'idempotent_mutate' } = {
      name: 'pay',
      sideEffectClass: 'read',
    };
    const { body } = counted();

    await ledger.tool(spec, body)({ amount: 1 }, { toolCallId: 'c1' });
    spec.sideEffectClass = 'idempotent_mutate';
    await ledger.tool(spec, body)({ amount: 2 }, { toolCallId: 'c2' });

    const classes = (await ledger.list()).records.map((record) => record.sideEffectClass).sort();
    expect(classes).toEqual(['idempotent_mutate', 'read']);
  });
});
