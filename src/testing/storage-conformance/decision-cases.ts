/**
 * Conformance cases: the decision a claim writes travels in the record's document, and a record
 * written before the decision protocol reads back without one.
 */
import assert from 'node:assert/strict';
import { composeDecision } from '../../ledger/decision.js';
import type { TransitionRecord } from '../../records/transition-record.js';
import { createNew, uniqueName } from './assertions.js';
import type { ConformanceSuite } from './harness.js';
import { makeTestRecord } from './make-test-record.js';

const ALLOWED = composeDecision([
  { check: 'fuses', verdict: 'allow' },
  { check: 'approval', verdict: 'allow', reason: 'approved — Zoë 🚀' },
  { check: 'ledger', verdict: 'allow', reason: 'fresh claim' },
]);

/** Register the decision cases. */
export function defineDecisionCases(suite: ConformanceSuite): void {
  suite.group('decision', () => {
    suite.test('a claim carries its decision through create, get, update and list', async ({ open }) => {
      const client = await open();
      const tool = uniqueName('decided');
      const v1 = makeTestRecord({ tool, decision: ALLOWED });
      await createNew(client, v1);
      assert.deepEqual(await client.get(v1.key), v1);

      // A takeover writes the decision of its own attempt in place of the last one.
      const next = composeDecision([{ check: 'ledger', verdict: 'allow', reason: 'RECLAIM: lease expired' }]);
      const v2: TransitionRecord = { ...v1, version: 2, fence: 2, owner: 'owner-2', decision: next };
      assert.equal(await client.update(v1.key, 1, v2), true);
      assert.deepEqual((await client.get(v1.key))?.decision, next);

      const v3: TransitionRecord = { ...v2, version: 3, outcome: 'COMPLETED', owner: null, result: { ok: true } };
      assert.equal(await client.update(v1.key, 2, v3), true);
      const page = await client.list({ tool });
      assert.deepEqual(
        page.records.map((record) => record.decision),
        [next],
      );
    });

    suite.test('a record written before the protocol reads back with no decision', async ({ open }) => {
      const client = await open();
      const older = makeTestRecord({ tool: uniqueName('older') });
      assert.equal(Object.hasOwn(older, 'decision'), false);
      await createNew(client, older);
      const stored = await client.get(older.key);
      assert.deepEqual(stored, older);
      assert.equal(stored !== null && Object.hasOwn(stored, 'decision'), false);
      // An update that keeps no decision stores none either: an update replaces, never merges.
      const withOne: TransitionRecord = { ...older, version: 2, decision: ALLOWED };
      assert.equal(await client.update(older.key, 1, withOne), true);
      const { decision: _dropped, ...without } = { ...withOne, version: 3 };
      assert.equal(await client.update(older.key, 2, without), true);
      const last = await client.get(older.key);
      assert.equal(last !== null && Object.hasOwn(last, 'decision'), false);
    });
  });
}
