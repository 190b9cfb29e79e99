/**
 * `hyphae/workflow` off the engine: a hard block becomes the engine's non-retryable `FatalError`,
 * other errors pass as they are (the engine retries them), and `ledgeredStep` and
 * `ledgeredStepTool` refuse to run outside a `"use step"` function (`ledgeredStep` with an empty
 * `key` too), running nothing. The engine itself is in workflow-*.int.test.ts.
 */

import { describe, expect, it } from 'vitest';
import { FatalError } from 'workflow';
import {
  ledgeredStep,
  ledgeredStepTool,
  runDurableOperation,
  toWorkflowError,
} from '../../../src/adapters/workflow.js';
import { createLedger, createMemoryStorage, GuardError, LedgerHardBlockError } from '../../../src/index.js';

const SPEC = { name: 'charge', sideEffectClass: 'payment' } as const;

function ledger() {
  return createLedger({ storage: createMemoryStorage(), agentId: 'workflow-test', policyVersion: '1' });
}

function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

describe('hyphae/workflow: the engine mapping', () => {
  it('turns a hard block into a FatalError that names it and keeps it as its cause', async () => {
    const onLedger = ledger();
    const operation = { id: 'step_01' };
    const fail = async () => {
      throw new Error('The receipt could not be parsed');
    };
    const thrown = await rejectionOf(runDurableOperation(onLedger, SPEC, operation, fail));
    const blocked = await rejectionOf(runDurableOperation(onLedger, SPEC, operation, fail));

    const mapped = toWorkflowError(blocked);
    const passed = toWorkflowError(thrown);

    expect(blocked).toBeInstanceOf(LedgerHardBlockError);
    expect(FatalError.is(mapped)).toBe(true);
    expect(mapped).toMatchObject({ code: 'ledger_hard_block', cause: blocked });
    expect((mapped as Error).message).toMatch(/^ledger_hard_block: Hard block on tool `charge`/);
    expect(passed).toBe(thrown);
    expect(FatalError.is(passed)).toBe(false);
  });

  it('refuses to run outside a "use step" function, running nothing', async () => {
    let runs = 0;
    const body = () => {
      runs++;
      return 1;
    };

    const outside = await rejectionOf(ledgeredStep(ledger(), SPEC, body));
    const emptyKey = await rejectionOf(ledgeredStep(ledger(), SPEC, body, { key: '' }));

    expect(outside).toBeInstanceOf(GuardError);
    expect(outside).toMatchObject({ code: 'not_in_step' });
    expect((outside as Error).message).toContain('`charge` was called outside a Workflow step');
    expect(emptyKey).toMatchObject({ code: 'invalid_operation' });
    expect(runs).toBe(0);
  });

  it('refuses a step tool called outside a "use step" function, and one whose body is not a function', async () => {
    let runs = 0;
    const charge = ledgeredStepTool(ledger(), SPEC, (order: { orderId: string }) => {
      runs++;
      return order.orderId;
    });

    const outside = await rejectionOf(charge({ orderId: 'ord_1' }, { toolCallId: 'call_1' }));

    expect(outside).toBeInstanceOf(GuardError);
    expect(outside).toMatchObject({ code: 'not_in_step' });
    expect((outside as Error).message).toContain('`charge` was called outside a Workflow step');
    expect(runs).toBe(0);
    expect(() => ledgeredStepTool(ledger(), SPEC, 'charge' as never)).toThrow(/fn/);
  });
});
