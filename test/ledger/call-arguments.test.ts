import { describe, expect, it } from 'vitest';
import { CanonicalJsonError, createMemoryStorage } from '../../src/index.js';
import { InvalidArgumentError } from '../../src/invalid-argument.js';
import { newLedger } from './ledger-helpers.js';

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

function boom(): never {
  throw new Error('boom');
}

function setup() {
  const storage = createMemoryStorage();
  const ledger = newLedger({ storage });
  let runs = 0;
  const pay = ledger.tool({ name: 'pay', sideEffectClass: 'non_idempotent_mutate' }, async (args: unknown) => {
    runs++;
    return { paid: args !== null };
  });
  const claimed = async (): Promise<number> => (await storage.list({})).records.length;
  return { pay, runs: () => runs, claimed };
}

describe('a ledgered tool refuses arguments it cannot fingerprint, before any claim', () => {
  it('refuses arguments nested 100k levels deep with CanonicalJsonError, not a RangeError', async () => {
    const { pay, runs, claimed } = setup();

    const error = await pay({ deep: nested(100_000) }, { toolCallId: 'call_1' }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(CanonicalJsonError);
    expect((error as CanonicalJsonError).code).toBe('non_json_value');
    expect((error as Error).message).toMatch(/nests deeper than 2000 levels/);
    expect(runs()).toBe(0);
    expect(await claimed()).toBe(0);
  });

  it('still runs arguments nested within the limit', async () => {
    const { pay, runs } = setup();

    await expect(pay({ deep: nested(1_500) }, { toolCallId: 'call_1' })).resolves.toEqual({ paid: true });
    expect(runs()).toBe(1);
  });

  it('refuses arguments whose getter or Proxy trap throws as non_json_value', async () => {
    const { pay, runs, claimed } = setup();
    const args = {
      get amount(): never {
        return boom();
      },
    };

    const error = await pay(args, { toolCallId: 'call_1' }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(CanonicalJsonError);
    expect(runs()).toBe(0);
    expect(await claimed()).toBe(0);
    const proxy = new Proxy({}, { ownKeys: boom, get: boom, getOwnPropertyDescriptor: boom });
    await expect(pay(proxy)).rejects.toMatchObject({ code: 'non_json_value' });
  });

  it.each([[null], [5], ['x'], [[]]])('refuses options = %j with invalid_argument', async (options: unknown) => {
    const { pay, runs, claimed } = setup();

    const error = await pay({ amount: 1 }, options as never).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect(error).toMatchObject({ code: 'invalid_argument', fn: 'pay', argument: 'options' });
    expect(runs()).toBe(0);
    expect(await claimed()).toBe(0);
  });

  it('refuses options whose getter throws', async () => {
    const { pay, runs } = setup();
    const options = {
      get toolCallId(): never {
        return boom();
      },
    };

    await expect(pay({ amount: 1 }, options)).rejects.toMatchObject({
      code: 'invalid_argument',
      argument: 'options.toolCallId',
    });
    expect(runs()).toBe(0);
  });

  it('passes the caller its own options object, extra fields included', async () => {
    const ledger = newLedger();
    let seen: unknown;
    const tool = ledger.tool({ name: 'look', sideEffectClass: 'read' }, async (_: unknown, options) => {
      seen = options;
      return 1;
    });
    const options = { toolCallId: 'call_9', messages: [] };

    await tool({}, options);

    expect(seen).toBe(options);
  });
});
