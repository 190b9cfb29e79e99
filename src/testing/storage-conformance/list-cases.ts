/**
 * Conformance cases: list filters, order and keyset paging.
 */
import assert from 'node:assert/strict';
import type { TransitionRecord } from '../../records/transition-record.js';
import type { LedgerStorage } from '../../storage/ledger-storage.js';
import { createNew, keysOf, listEverything, listOrder, uniqueName } from './assertions.js';
import type { ConformanceSuite } from './harness.js';
import { makeTestRecord } from './make-test-record.js';

const T = 1_767_225_600_000;

/** Create one record per override, all under `tool`, and return them. */
async function seed(
  client: LedgerStorage,
  tool: string,
  overrides: readonly Partial<TransitionRecord>[],
): Promise<TransitionRecord[]> {
  const records = overrides.map((override) => makeTestRecord({ tool, ...override }));
  await Promise.all(records.map((record) => createNew(client, record)));
  return records;
}

/** Eleven records on seven update times: ties exercise the key tie-break across page edges. */
const PAGED_TIMES = [T, T, T, T + 1, T + 2, T + 2, T + 3, T + 4, T + 4, T + 4, T + 5];
/** The records of {@link PAGED_TIMES} that differ in nothing else. */
const PAGED = PAGED_TIMES.map((updatedAt) => ({ updatedAt }));

/** Register the list cases. */
export function defineListCases(suite: ConformanceSuite): void {
  suite.group('list', () => {
    suite.test('filters by one outcome and by a list of outcomes', async ({ open }) => {
      const client = await open();
      const tool = uniqueName('outcomes');
      const outcomes = ['IN_FLIGHT', 'COMPLETED', 'UNKNOWN', 'COMPLETED', 'BLOCKED'] as const;
      const records = await seed(
        client,
        tool,
        outcomes.map((outcome, i) => ({ outcome, updatedAt: T + i })),
      );
      const completed = records.filter((record) => record.outcome === 'COMPLETED');
      assert.deepEqual((await client.list({ tool, outcome: 'COMPLETED' })).records, [...completed].reverse());
      const either = (await client.list({ tool, outcome: ['UNKNOWN', 'IN_FLIGHT'] })).records;
      assert.deepEqual(
        keysOf(either),
        listOrder(records.filter((r) => r.outcome === 'UNKNOWN' || r.outcome === 'IN_FLIGHT')),
      );
      assert.deepEqual((await client.list({ tool, outcome: 'FAILED_AFTER_EFFECT' })).records, []);
    });

    suite.test('filters by tool and by kind', async ({ open }) => {
      const client = await open();
      const [toolA, toolB] = [uniqueName('tool_a'), uniqueName('tool_b')];
      const a = await seed(client, toolA, [{ kind: 'tool' }, { kind: 'task' }, { kind: 'task', updatedAt: T + 1 }]);
      await seed(client, toolB, [{ kind: 'tool' }, { kind: 'task' }]);
      assert.deepEqual(keysOf((await client.list({ tool: toolA })).records), listOrder(a));
      const tasks = (await client.list({ tool: toolA, kind: 'task' })).records;
      assert.deepEqual(keysOf(tasks), listOrder(a.filter((record) => record.kind === 'task')));
      assert.deepEqual(keysOf((await client.list({ tool: toolA, kind: 'tool' })).records), [a[0]?.key]);
    });

    suite.test('filters by update time: updatedFrom inclusive, updatedTo exclusive', async ({ open }) => {
      const client = await open();
      const tool = uniqueName('window');
      const records = await seed(
        client,
        tool,
        [0, 1, 2, 3, 4].map((i) => ({ updatedAt: T + i * 1000 })),
      );
      const window = await client.list({ tool, updatedFrom: T + 1000, updatedTo: T + 3000 });
      assert.deepEqual(keysOf(window.records), listOrder(records.slice(1, 3)));
      assert.deepEqual(
        keysOf((await client.list({ tool, updatedFrom: T + 4000 })).records),
        listOrder(records.slice(4)),
      );
      assert.deepEqual(
        keysOf((await client.list({ tool, updatedTo: T + 1000 })).records),
        listOrder(records.slice(0, 1)),
      );
    });

    suite.test('orders newest update first, then key descending', async ({ open }) => {
      const client = await open();
      const tool = uniqueName('order');
      const records = await seed(client, tool, PAGED);
      const page = await client.list({ tool });
      assert.deepEqual(keysOf(page.records), listOrder(records));
      assert.deepEqual(
        page.records[0],
        records.find((record) => record.key === listOrder(records)[0]),
      );
      assert.equal(page.nextCursor, null);
    });

    suite.test('paging with limit and nextCursor visits every match exactly once', async ({ open }) => {
      const client = await open();
      const tool = uniqueName('paging');
      const records = await seed(client, tool, PAGED);
      for (const limit of [1, 2, 3, 4, 11, 12]) {
        const visited = await listEverything(client, { tool, limit });
        assert.deepEqual(keysOf(visited), listOrder(records), `limit ${limit}`);
      }
      const exact = await client.list({ tool, limit: records.length });
      assert.equal(exact.nextCursor, null, 'a page holding the last match has no cursor');
    });

    suite.test('paging combines with filters', async ({ open }) => {
      const client = await open();
      const tool = uniqueName('filtered_paging');
      const overrides = PAGED_TIMES.map(
        (updatedAt, i) => ({ updatedAt, outcome: i % 3 === 0 ? 'UNKNOWN' : 'COMPLETED' }) as const,
      );
      const records = await seed(client, tool, overrides);
      const completed = records.filter((record) => record.outcome === 'COMPLETED' && record.updatedAt < T + 5);
      const visited = await listEverything(client, { tool, outcome: ['COMPLETED'], updatedTo: T + 5, limit: 2 });
      assert.deepEqual(keysOf(visited), listOrder(completed));
    });

    suite.test('a query with no match is one empty page', async ({ open }) => {
      const client = await open();
      assert.deepEqual(await client.list({ tool: uniqueName('nothing') }), { records: [], nextCursor: null });
    });

    suite.test('a malformed cursor and a non-positive limit are refused', async ({ open }) => {
      const client = await open();
      const tool = uniqueName('refused');
      await assert.rejects(client.list({ tool, cursor: 'not a cursor' }));
      await assert.rejects(client.list({ tool, limit: 0 }));
      await assert.rejects(client.list({ tool, limit: 1.5 }));
    });
  });
}
