/**
 * Conformance cases for the optional `identity`: one ledger id per store, written once however
 * many clients initialise it at once, and met again by every later client.
 */
import assert from 'node:assert/strict';
import type { LedgerIdentity, LedgerStorage } from '../../storage/ledger-storage.js';
import { createNew } from './assertions.js';
import { type ConformanceSuite, defineOptionalCases } from './harness.js';
import { makeTestRecord } from './make-test-record.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function identityOf(storage: LedgerStorage): Promise<LedgerIdentity> {
  assert.equal(typeof storage.identity, 'function', 'the driver was declared to keep a ledger id, and has none');
  return (storage.identity as () => Promise<LedgerIdentity>).call(storage);
}

/**
 * Register the `identity` cases when the driver declares it keeps a ledger id; otherwise one case
 * checks that it has none.
 */
export function defineIdentityCases(suite: ConformanceSuite): void {
  const titles = { absent: 'keeps no ledger id, as declared', group: 'identity (optional ledger id)' };
  defineOptionalCases(suite, 'identity', titles, () => {
    suite.test(
      'every client of one store meets one ledger id, however many initialise it at once',
      async ({ openMany }) => {
        const clients = await openMany(8);
        const identities = await Promise.all(clients.map(identityOf));
        const [first] = identities;
        assert.ok(first !== undefined && UUID.test(first.ledgerId), 'the ledger id is not a UUID');
        assert.ok(Number.isFinite(first.createdAt) && first.createdAt > 0, 'the ledger has no creation time');
        for (const identity of identities) assert.deepEqual(identity, first);
      },
    );

    suite.test('the ledger id survives writes and is met again by a new client', async ({ open }) => {
      const writer = await open();
      const before = await identityOf(writer);
      await createNew(writer, makeTestRecord());
      assert.deepEqual(await identityOf(await open()), before);
    });
  });
}
