/**
 * `hyphae/restate` off the engine: a hard block becomes Restate's non-retryable `TerminalError`,
 * other errors pass as they are (Restate retries them), and `ledgeredRun` refuses to run without a
 * handler's context or with an empty `key`, running nothing. The engine itself is in
 * restate-*.int.test.ts. (The SDK loads on Node.js 20; only running an invocation needs 22.)
 */
import { TerminalError } from '@restatedev/restate-sdk';
import { describe, expect, it } from 'vitest';
import {
  ledgeredRun,
  type RestateRunContext,
  runDurableOperation,
  toRestateError,
} from '../../../src/adapters/restate.js';
import { createLedger, createMemoryStorage, GuardError, LedgerHardBlockError } from '../../../src/index.js';

const SPEC = { name: 'charge', sideEffectClass: 'payment' } as const;

function ledger() {
  return createLedger({ storage: createMemoryStorage(), agentId: 'restate-test', policyVersion: '1' });
}

function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

describe('hyphae/restate: the engine mapping', () => {
  it('turns a hard block into a TerminalError that names it and keeps it as its cause', async () => {
    const onLedger = ledger();
    const operation = { id: 'inv_1#charge' };
    const fail = async () => {
      throw new Error('The receipt could not be parsed');
    };
    const thrown = await rejectionOf(runDurableOperation(onLedger, SPEC, operation, fail));
    const blocked = await rejectionOf(runDurableOperation(onLedger, SPEC, operation, fail));

    const mapped = toRestateError(blocked);
    const passed = toRestateError(thrown);

    expect(blocked).toBeInstanceOf(LedgerHardBlockError);
    expect(mapped).toBeInstanceOf(TerminalError);
    expect(mapped).toMatchObject({ cause: blocked, code: 500 });
    expect((mapped as Error).message).toMatch(/^ledger_hard_block: Hard block on tool `charge`/);
    expect(passed).toBe(thrown);
    expect(passed).not.toBeInstanceOf(TerminalError);
  });

  it('refuses to run without a handler context or with an empty key, running nothing', async () => {
    let runs = 0;
    const body = () => {
      runs++;
      return 1;
    };
    let ctxRuns = 0;
    const ctx: RestateRunContext = {
      run: async (_name, action) => {
        ctxRuns++;
        return action();
      },
      request: () => ({ id: 'inv_1' }),
    };

    const outside = await rejectionOf(ledgeredRun(undefined as unknown as RestateRunContext, ledger(), SPEC, body));
    const emptyKey = await rejectionOf(ledgeredRun(ctx, ledger(), SPEC, body, { key: '' }));
    const noBody = await rejectionOf(ledgeredRun(ctx, ledger(), SPEC, 'charge' as unknown as () => number));

    expect(outside).toBeInstanceOf(GuardError);
    expect(outside).toMatchObject({ code: 'not_in_step' });
    expect((outside as Error).message).toContain('`charge` was called outside a Restate handler');
    expect(emptyKey).toMatchObject({ code: 'invalid_operation' });
    expect(noBody).toMatchObject({ code: 'invalid_operation' });
    expect(runs).toBe(0);
    expect(ctxRuns).toBe(0);
  });
});
