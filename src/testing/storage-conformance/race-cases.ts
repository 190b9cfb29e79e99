/**
 * Conformance cases: concurrent claims from separate clients, takeover and fencing.
 */
import assert from 'node:assert/strict';
import { createNew, soleWinner } from './assertions.js';
import type { ConformanceSuite } from './harness.js';
import { makeTestRecord } from './make-test-record.js';

/** Register the concurrency cases, once per configured number of contenders. */
export function defineRaceCases(suite: ConformanceSuite): void {
  suite.group('concurrency', () => {
    for (const n of suite.concurrency) {
      suite.test(
        `${n} clients creating one key: exactly one wins, every loser sees the winner`,
        async ({ openMany }) => {
          const clients = await openMany(n);
          const { key, ticketKey } = makeTestRecord();
          const results = await Promise.all(
            clients.map((client, i) => client.create(makeTestRecord({ key, ticketKey, owner: `owner-${i}` }))),
          );
          const winner = soleWinner(results);
          for (const result of results.filter((r) => !r.created)) {
            assert.deepEqual(result, { created: false, conflict: 'key', record: winner });
          }
          for (const client of clients) assert.deepEqual(await client.get(key), winner);
          for (const client of clients) assert.deepEqual(await client.findByTicket(ticketKey ?? ''), winner);
        },
        suite.raceTimeoutMs,
      );

      suite.test(
        `${n} clients claiming one ticket under different keys: exactly one wins`,
        async ({ openMany }) => {
          const clients = await openMany(n);
          const { ticketKey } = makeTestRecord();
          const contenders = clients.map((client, i) => ({
            client,
            record: makeTestRecord({ ticketKey, owner: `owner-${i}` }),
          }));
          const results = await Promise.all(contenders.map(({ client, record }) => client.create(record)));
          const winner = soleWinner(results);
          for (const result of results.filter((r) => !r.created)) {
            assert.deepEqual(result, { created: false, conflict: 'ticket', record: winner });
          }
          const stored = await Promise.all(contenders.map(({ client, record }) => client.get(record.key)));
          assert.deepEqual(
            stored.filter((record) => record !== null),
            [winner],
            'only the winner was inserted',
          );
        },
        suite.raceTimeoutMs,
      );

      suite.test(
        `${n} clients updating one version: exactly one compare-and-set succeeds`,
        async ({ openMany }) => {
          const clients = await openMany(n);
          const v1 = makeTestRecord();
          const [first] = clients;
          assert.ok(first !== undefined);
          await createNew(first, v1);
          const attempts = clients.map((client, i) => ({
            client,
            next: { ...v1, version: 2, fence: 2, owner: `owner-${i}` },
          }));
          const results = await Promise.all(attempts.map(({ client, next }) => client.update(v1.key, 1, next)));
          assert.equal(results.filter(Boolean).length, 1, 'exactly one update should win');
          const winner = attempts[results.indexOf(true)]?.next;
          for (const { client } of attempts) assert.deepEqual(await client.get(v1.key), winner);
        },
        suite.raceTimeoutMs,
      );
    }

    suite.test('takeover: a stale owner loses its compare-and-set and the new owner stands', async ({ openMany }) => {
      const [ownerA, ownerB] = await openMany(2);
      assert.ok(ownerA !== undefined && ownerB !== undefined);
      // A claims (fence 1) and stalls. B finds the lease expired and takes over: v1 → v2, fence 2.
      // A wakes and tries to complete against the v1 it read; the CAS must fail, B's claim must stand.
      const claim = makeTestRecord({ owner: 'owner-a', fence: 1 });
      await createNew(ownerA, claim);
      const seenByA = await ownerA.get(claim.key);
      assert.ok(seenByA !== null);
      const seenByB = await ownerB.get(claim.key);
      assert.ok(seenByB !== null);
      const takeover = {
        ...seenByB,
        version: 2,
        owner: 'owner-b',
        fence: 2,
        attempts: 2,
        updatedAt: seenByB.updatedAt + 1,
      };
      assert.equal(await ownerB.update(claim.key, seenByB.version, takeover), true);
      const staleCompletion = { ...seenByA, version: 2, outcome: 'COMPLETED' as const, result: { paid: 'twice' } };
      assert.equal(await ownerA.update(claim.key, seenByA.version, staleCompletion), false);
      const heartbeat = { ...seenByA, version: 2, lastHeartbeatAt: seenByA.updatedAt + 5 };
      assert.equal(await ownerA.update(claim.key, seenByA.version, heartbeat), false);
      assert.deepEqual(await ownerA.get(claim.key), takeover);
      const completion = { ...takeover, version: 3, outcome: 'COMPLETED' as const, result: { paid: 'once' } };
      assert.equal(await ownerB.update(claim.key, 2, completion), true);
      assert.deepEqual(await ownerA.get(claim.key), completion);
    });
  });
}
