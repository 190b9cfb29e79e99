/**
 * `markExecutorDead`: a restarted DBOS executor marks the claims of its earlier processes dead,
 * and no other executor's; a step meeting such a claim hard-blocks at once instead of waiting out
 * the lease; after `DBOS.launch()` it refuses, since the process's own claims would be among them.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { describe, expect, it } from 'vitest';
import { dbosOwnerId, markExecutorDead, runDurableOperation } from '../../../src/adapters/dbos.js';
import { createLedger, createMemoryStorage, InvalidArgumentError, LedgerHardBlockError } from '../../../src/index.js';
import { integrationSkip, probePostgres } from '../../helpers/integration.js';
import { createAppDatabase } from './app.js';

const skip = integrationSkip(await probePostgres());
const SPEC = { name: 'charge', sideEffectClass: 'payment' } as const;
const IDENTITY = { agentId: 'shop', policyVersion: 'shop.1' } as const;

describe('markExecutorDead', () => {
  it("marks the earlier process's claims of one executor dead, and no other executor's", async () => {
    const storage = createMemoryStorage();
    // Default leases: five minutes. The killed processes' bodies never return.
    const killedA = createLedger({ storage, ...IDENTITY, ownerId: dbosOwnerId('exec-a') });
    const otherAb = createLedger({ storage, ...IDENTITY, ownerId: dbosOwnerId('exec-ab') });
    const hang = () => new Promise<never>(() => {});
    void runDurableOperation(killedA, SPEC, { id: 'wf-1#1' }, hang);
    void runDurableOperation(otherAb, SPEC, { id: 'wf-2#1' }, hang);
    await new Promise((resolve) => setTimeout(resolve, 50));

    const restarted = createLedger({ storage, ...IDENTITY, ownerId: dbosOwnerId('exec-a') });
    const marked = await markExecutorDead(restarted, 'exec-a');

    expect(marked).toHaveLength(1);
    expect(marked[0]).toMatchObject({
      ticket: 'wf-1#1',
      workerDeath: { by: 'dbos', reason: expect.stringContaining('`exec-a` restarted'), overrideHeartbeat: true },
    });
    let runs = 0;
    // At once: a step that waited for the five-minute lease would outlive the test's timeout.
    const recovered = runDurableOperation(restarted, SPEC, { id: 'wf-1#1' }, () => ++runs);
    await expect(recovered).rejects.toBeInstanceOf(LedgerHardBlockError);
    expect(runs).toBe(0);
    const other = (await restarted.list()).records.find((record) => record.ticket === 'wf-2#1');
    expect(other?.outcome).toBe('IN_FLIGHT');
    expect(other?.workerDeath ?? null).toBeNull();
  });

  it('refuses garbage before touching the store', async () => {
    const ledger = createLedger({ storage: createMemoryStorage(), ...IDENTITY });

    await expect(markExecutorDead(ledger, '')).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(markExecutorDead(null as never, 'exec-a')).rejects.toBeInstanceOf(InvalidArgumentError);
    expect(() => dbosOwnerId(' ')).toThrow(InvalidArgumentError);
    expect(dbosOwnerId('exec-a')).toBe('dbos:exec-a');
  });

  it.skipIf(skip)('refuses once DBOS has launched as that executor', { timeout: 60_000 }, async () => {
    const db = await createAppDatabase();
    const ledger = createLedger({ storage: createMemoryStorage(), ...IDENTITY, ownerId: dbosOwnerId('exec-live') });
    try {
      DBOS.setConfig({ name: 'executor_death', systemDatabaseUrl: db.url, logLevel: 'error', executorID: 'exec-live' });
      await DBOS.launch();

      await expect(markExecutorDead(ledger, 'exec-live')).rejects.toMatchObject({ code: 'dbos_launched' });
      expect(await markExecutorDead(ledger, 'exec-gone')).toEqual([]);
    } finally {
      await DBOS.shutdown();
      await db.drop();
    }
  });
});
