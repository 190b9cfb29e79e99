/**
 * Conformance cases: a `denial` record (a refused call's trace) is stored, listed by kind and
 * counted by compare-and-set like any record, and holds no ticket index entry, so the transition
 * it refused can still be claimed under the same ticket.
 */
import assert from 'node:assert/strict';
import { composeDecision } from '../../ledger/decision.js';
import type { TransitionRecord } from '../../records/transition-record.js';
import { createNew, keysOf, uniqueName } from './assertions.js';
import type { ConformanceSuite } from './harness.js';
import { makeTestRecord } from './make-test-record.js';

const DENIED = composeDecision([{ check: 'fuses', verdict: 'deny', reason: 'loop: loop_detected' }]);

/** Register the denial cases. */
export function defineDenialCases(suite: ConformanceSuite): void {
  suite.group('denial records', () => {
    suite.test('a denial is stored, listed by kind and counted by compare-and-set', async ({ open }) => {
      const client = await open();
      const tool = uniqueName('denied');
      const claimed = makeTestRecord({ tool });
      const denial = makeTestRecord({
        tool,
        kind: 'denial',
        ticket: claimed.ticket,
        ticketKey: null,
        outcome: 'BLOCKED',
        owner: null,
        fence: 0,
        leaseUntil: null,
        lastHeartbeatAt: null,
        decision: DENIED,
        refusedTransition: claimed.key,
        updatedAt: claimed.updatedAt + 1,
      });
      await createNew(client, denial);
      // It holds no ticket: the refused transition claims its own key under the same ticket.
      await createNew(client, claimed);
      assert.equal(await client.findByTicket(claimed.ticketKey as string).then((r) => r?.key), claimed.key);

      assert.deepEqual(keysOf((await client.list({ tool, kind: 'denial' })).records), [denial.key]);
      assert.deepEqual(keysOf((await client.list({ tool, kind: 'tool' })).records), [claimed.key]);
      assert.deepEqual(keysOf((await client.list({ tool, outcome: 'BLOCKED', kind: 'denial' })).records), [denial.key]);

      const repeat: TransitionRecord = { ...denial, attempts: 2, version: 2, updatedAt: denial.updatedAt + 1 };
      assert.equal(await client.update(denial.key, 1, repeat), true);
      assert.equal(await client.update(denial.key, 1, { ...repeat, attempts: 3 }), false);
      assert.deepEqual(await client.get(denial.key), repeat);
    });
  });
}
