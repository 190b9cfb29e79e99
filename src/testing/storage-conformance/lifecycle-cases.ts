/**
 * Conformance cases: capabilities and closing.
 */
import assert from 'node:assert/strict';
import { createNew } from './assertions.js';
import type { ConformanceSuite } from './harness.js';
import { makeTestRecord } from './make-test-record.js';

/** Register the capability and close cases. */
export function defineLifecycleCases(suite: ConformanceSuite): void {
  suite.group('lifecycle', () => {
    suite.test('declares its capabilities', async ({ open }) => {
      const { capabilities } = await open();
      assert.equal(typeof capabilities.name, 'string');
      assert.notEqual(capabilities.name, '');
      assert.equal(typeof capabilities.crossProcess, 'boolean');
      assert.equal(typeof capabilities.durable, 'boolean');
    });

    suite.test('close twice does not throw, before or after use', async ({ open }) => {
      const unused = await open();
      await unused.close();
      await unused.close();
      const used = await open();
      await used.get(makeTestRecord().key);
      await Promise.all([used.close(), used.close()]);
      await used.close();
    });

    suite.test('every operation after close rejects', async ({ open }) => {
      const client = await open();
      const record = makeTestRecord();
      await createNew(client, record);
      await client.close();
      await assert.rejects(client.get(record.key));
      await assert.rejects(client.create(makeTestRecord()));
      await assert.rejects(client.update(record.key, 1, { ...record, version: 2 }));
      await assert.rejects(client.findByTicket(record.ticketKey ?? ''));
      await assert.rejects(client.list({ tool: record.tool, limit: 1 }));
      const neverUsed = await open();
      await neverUsed.close();
      await assert.rejects(neverUsed.get(record.key));
    });

    suite.test('closing one client leaves the others and the data in place', async ({ open }) => {
      const writer = await open();
      const reader = await open();
      const record = makeTestRecord();
      await createNew(writer, record);
      await writer.close();
      assert.deepEqual(await reader.get(record.key), record);
      const later = await open();
      assert.deepEqual(await later.get(record.key), record);
    });
  });
}
