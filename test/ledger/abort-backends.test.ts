/**
 * An aborted caller on one worker, a retry on another, one store: the retry waits for the body the
 * abort left running and returns its result; the provider is charged once.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createLedger, type Ledger, type LedgerStorage } from '../../src/index.js';
import { AGENT_ID, durableBackends, POLICY_VERSION } from '../helpers/backends.js';
import { deferred, rejectionOf, until } from './ledger-helpers.js';

const backends = await durableBackends();

function workerLedger(storage: LedgerStorage): Ledger {
  return createLedger({
    storage,
    agentId: AGENT_ID,
    policyVersion: POLICY_VERSION,
    leaseTtlMs: 30_000,
    pollIntervalMs: 5,
    pollMaxIntervalMs: 20,
  });
}

describe.each(backends.map((backend) => [backend.name, backend] as const))(
  'abort then retry on %s',
  (_name, backend) => {
    afterAll(() => backend.dispose());

    it('answers the aborted worker at once and lets the retrying worker return the one charge', async () => {
      const [a, b] = [await backend.open(), await backend.open()];
      const gate = deferred();
      const charges: string[] = [];
      let bodies = 0;
      const payOn = (ledger: Ledger) =>
        ledger.tool({ name: 'send_payment', sideEffectClass: 'payment' }, async (args: { invoice: string }) => {
          bodies += 1;
          await gate.promise;
          charges.push(args.invoice);
          return { charged: args.invoice };
        });
      const [payA, payB] = [payOn(workerLedger(a.storage)), payOn(workerLedger(b.storage))];
      const call = { toolCallId: `call_${randomUUID()}`, scope: { runId: 'run-1' } };
      const controller = new AbortController();
      try {
        const first = payA({ invoice: 'inv_42' }, { ...call, abortSignal: controller.signal });
        await until(() => bodies === 1, 'the first body to start');
        controller.abort(new DOMException('The operation timed out', 'TimeoutError'));
        expect(((await rejectionOf(first)) as Error).name).toBe('TimeoutError');

        const retry = payB({ invoice: 'inv_42' }, call);
        gate.resolve();

        expect(await retry).toEqual({ charged: 'inv_42' });
        expect(charges).toEqual(['inv_42']);
        expect(bodies).toBe(1);
      } finally {
        await a.cleanup();
        await b.cleanup();
      }
    });
  },
);
