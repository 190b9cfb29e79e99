import { describe, expect, it } from 'vitest';
import { createLedger, createMemoryStorage, LedgerAlreadyResolvedError, type LedgerStorage } from '../../src/index.js';
import { actWhereHeld } from '../../src/ledger/operator/across-ledgers.js';
import { makeTestRecord } from '../../src/testing/index.js';

/** A ledger over a memory store that counts its reads by key. */
function countedLedger(name: string) {
  const storage = createMemoryStorage();
  const reads = { count: 0 };
  const counted: LedgerStorage = {
    ...storage,
    get: (key) => {
      reads.count++;
      return storage.get(key);
    },
  };
  return { name, storage, reads, ledger: createLedger({ storage: counted, agentId: 'ops', policyVersion: '1' }) };
}

const audit = { by: 'ops', reason: 'checked with the provider' };

describe('an operator action across ledgers', () => {
  it('acts in the ledger that holds the key, which reads the record once', async () => {
    const action = countedLedger('action');
    const task = countedLedger('task');
    const unknown = makeTestRecord({ outcome: 'UNKNOWN', boundary: 'maybe_crossed', owner: null, leaseUntil: null });
    await task.storage.create(unknown);

    const done = await actWhereHeld([action, task], (named) =>
      named.ledger.release(unknown.key, { verified: 'not_executed', ...audit }),
    );
    expect(done?.ledger.name).toBe('task');
    expect(done?.value.operatorResolution?.verified).toBe('not_executed');
    expect([action.reads.count, task.reads.count]).toEqual([1, 1]);
  });

  it('answers undefined when no ledger holds the key, and throws any other refusal', async () => {
    const action = countedLedger('action');
    const missing = await actWhereHeld([action], (named) =>
      named.ledger.markWorkerDead('0'.repeat(64), { ...audit, overrideHeartbeat: true }),
    );
    expect(missing).toBeUndefined();

    const completed = makeTestRecord({ outcome: 'COMPLETED', owner: null, leaseUntil: null });
    await action.storage.create(completed);
    await expect(
      actWhereHeld([action], (named) => named.ledger.release(completed.key, { verified: 'not_executed', ...audit })),
    ).rejects.toBeInstanceOf(LedgerAlreadyResolvedError);
  });
});
