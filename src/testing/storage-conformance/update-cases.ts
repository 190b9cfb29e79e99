/**
 * Conformance cases: compare-and-set updates.
 */
import assert from 'node:assert/strict';
import { createNew, keysOf, uniqueName } from './assertions.js';
import type { ConformanceSuite } from './harness.js';
import { makeTestRecord } from './make-test-record.js';

/** Register the update cases. */
export function defineUpdateCases(suite: ConformanceSuite): void {
  suite.group('update', () => {
    suite.test('update with the current version replaces the whole record', async ({ open }) => {
      const client = await open();
      const v1 = makeTestRecord();
      await createNew(client, v1);
      const v2 = {
        ...v1,
        version: 2,
        outcome: 'COMPLETED' as const,
        result: { receipt: ['r', 1] },
        updatedAt: v1.updatedAt + 1,
      };
      assert.equal(await client.update(v1.key, 1, v2), true);
      assert.deepEqual(await client.get(v1.key), v2);
      // Fields absent from the next record are absent afterwards: an update replaces, never merges.
      const { result: _dropped, ...v3 } = { ...v2, version: 3, outcome: 'FAILED_AFTER_EFFECT' as const };
      assert.equal(await client.update(v1.key, 2, v3), true);
      const stored = await client.get(v1.key);
      assert.deepEqual(stored, v3);
      assert.equal(stored !== null && Object.hasOwn(stored, 'result'), false);
    });

    suite.test('update with a stale version returns false and changes nothing', async ({ open }) => {
      const client = await open();
      const v1 = makeTestRecord();
      await createNew(client, v1);
      const v2 = { ...v1, version: 2, owner: 'owner-2' };
      assert.equal(await client.update(v1.key, 1, v2), true);
      assert.equal(await client.update(v1.key, 1, { ...v1, version: 2, outcome: 'COMPLETED' }), false);
      assert.equal(await client.update(v1.key, 3, { ...v1, version: 4, outcome: 'COMPLETED' }), false);
      assert.deepEqual(await client.get(v1.key), v2);
    });

    suite.test('update of a missing key returns false and creates nothing', async ({ open }) => {
      const client = await open();
      const ghost = makeTestRecord();
      assert.equal(await client.update(ghost.key, 1, { ...ghost, version: 2 }), false);
      assert.equal(await client.get(ghost.key), null);
      assert.equal(await client.findByTicket(ghost.ticketKey ?? ''), null);
    });

    suite.test('update never moves or removes the ticket index entry', async ({ open }) => {
      const client = await open();
      const v1 = makeTestRecord();
      const ticketKey = v1.ticketKey ?? '';
      await createNew(client, v1);
      assert.equal(await client.update(v1.key, 1, { ...v1, version: 2, ticketKey: null }), true);
      const elsewhere = makeTestRecord().ticketKey ?? '';
      assert.equal(await client.update(v1.key, 2, { ...v1, version: 3, ticketKey: elsewhere }), true);
      const holder = await client.findByTicket(ticketKey);
      assert.equal(holder?.key, v1.key);
      assert.equal(holder?.version, 3);
      assert.equal(holder?.ticketKey, ticketKey);
      assert.equal(await client.findByTicket(elsewhere), null);
      const rival = makeTestRecord({ ticketKey });
      assert.deepEqual(await client.create(rival), { created: false, conflict: 'ticket', record: holder });
    });

    suite.test('update moves the record between list filters', async ({ open }) => {
      const client = await open();
      const tool = uniqueName('moves');
      const v1 = makeTestRecord({ tool, updatedAt: 1_000 });
      await createNew(client, v1);
      const v2 = { ...v1, version: 2, outcome: 'COMPLETED' as const, kind: 'task' as const, updatedAt: 2_000 };
      assert.equal(await client.update(v1.key, 1, v2), true);
      assert.deepEqual(keysOf((await client.list({ tool, outcome: 'IN_FLIGHT' })).records), []);
      assert.deepEqual((await client.list({ tool, outcome: 'COMPLETED', kind: 'task' })).records, [v2]);
      assert.deepEqual(keysOf((await client.list({ tool, updatedTo: 2_000 })).records), []);
      assert.deepEqual(keysOf((await client.list({ tool, updatedFrom: 2_000 })).records), [v1.key]);
    });
  });
}
