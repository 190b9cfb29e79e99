/**
 * Fencing a paused owner on the real stores (SQLite, Redis, PostgreSQL).
 *
 * Owner A and owner B are two ledgers, each on its own storage instance (its own connection), that
 * share one manual clock. A claims with a short lease that it never renews on its own (the renewal
 * interval is longer than the lease) and pauses; the clock passes the lease; B reclaims the
 * expired claim of a safe tool (`idempotent_mutate`) and completes:
 *
 *   A: claim (fence 1, v1) ── paused ─────────────────────────── wakes: write v1→… refused ─► LedgerFencedError
 *   B:             lease passes ─► takeover (fence 2) ─► runs ─► COMPLETED
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createLedger,
  createManualClock,
  LedgerFencedError,
  type LedgerStorage,
  renewLease,
  sideEffect,
  type ToolSpec,
  type TransitionRecord,
  ticketKey,
} from '../../src/index.js';
import { type TestStore, testStores } from '../helpers/server-stores.js';

const stores = await testStores(
  ['sqlite', 'node-sqlite', 'redis', 'ioredis', 'redis-cluster', 'ioredis-cluster', 'postgres'],
  'fence',
);
const AGENT_ID = 'hyphae-fence-agent';
const LEASE_MS = 1_000;
const START = 1_767_225_600_000;
const SPEC: ToolSpec = { name: 'sync_inventory', sideEffectClass: 'idempotent_mutate' };

interface SyncArgs {
  readonly sku: string;
}

/** Wait for `condition` without asserting on time; gives up after about 30 s. */
async function eventually(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 6_000; i++) {
    if (condition()) return;
    await sleep(5);
  }
  throw new Error(`Timed out waiting for ${what}`);
}

/**
 * Owners A and B on `store`. A's body pauses until `wakeA()`, then runs `afterWake`; B's body
 * returns `'B result'`. `takeover()` lets A claim, passes the lease and lets B complete.
 */
function owners(store: TestStore, afterWake: () => unknown = () => 'A result') {
  const clock = createManualClock(START);
  const storageA = store.open();
  const storageB = store.open();
  const settings = {
    agentId: AGENT_ID,
    policyVersion: 'fence-1',
    clock,
    leaseTtlMs: LEASE_MS,
    leaseRenewIntervalMs: 10 * LEASE_MS,
    pollIntervalMs: 5,
  };
  const runs = { a: 0, b: 0 };
  let wake: () => void = () => {};
  const paused = new Promise<void>((resolve) => {
    wake = resolve;
  });
  const toolA = createLedger({ storage: storageA, ...settings }).tool(SPEC, async (_args: SyncArgs) => {
    runs.a += 1;
    await paused;
    return afterWake();
  });
  const toolB = createLedger({ storage: storageB, ...settings }).tool(SPEC, async (_args: SyncArgs) => {
    runs.b += 1;
    return 'B result';
  });
  const callId = `call_${randomUUID()}`;
  const args: SyncArgs = { sku: `sku_${callId}` };
  const read = (storage: LedgerStorage): Promise<TransitionRecord | null> =>
    storage.findByTicket(ticketKey({}, AGENT_ID, callId));

  return {
    runs,
    storageA,
    storageB,
    read,
    wakeA: () => wake(),
    callA: () => toolA(args, { toolCallId: callId }),
    callB: () => toolB(args, { toolCallId: callId }),
    async takeover() {
      const a = this.callA();
      a.catch(() => {});
      await eventually(() => runs.a === 1, 'owner A to start its body');
      const aRecord = await read(storageB);
      clock.advance(LEASE_MS);
      const bResult = await this.callB();
      const bRecord = await read(storageA);
      return { a, aRecord, bResult, bRecord };
    },
    async close() {
      await Promise.all([storageA.close(), storageB.close()]);
    },
  };
}

for (const store of stores) {
  describe.skipIf(store.skip)(`${store.name}: fencing a paused owner`, () => {
    afterAll(async () => {
      await store.dispose();
    });

    it('B reclaims after the lease and completes; A’s completion raises LedgerFencedError; B’s result stands', async () => {
      const setup = owners(store);
      try {
        const { a, aRecord, bResult, bRecord } = await setup.takeover();

        setup.wakeA();
        const error = await a.then(
          () => null,
          (caught: unknown) => caught,
        );

        expect(aRecord).toMatchObject({ outcome: 'IN_FLIGHT', fence: 1, leaseUntil: START + LEASE_MS });
        expect(bResult).toBe('B result');
        expect(bRecord).toMatchObject({ outcome: 'COMPLETED', fence: 2, attempts: 2, result: 'B result', owner: null });
        expect(error).toBeInstanceOf(LedgerFencedError);
        expect((error as LedgerFencedError).fence).toBe(1);
        expect((error as LedgerFencedError).record).toMatchObject({ fence: 2, outcome: 'COMPLETED' });
        expect(await setup.read(setup.storageA)).toEqual(bRecord);
        expect(await setup.read(setup.storageB)).toEqual(bRecord);
        // A redispatch through A's ledger returns B's stored result; neither body runs again.
        await expect(setup.callA()).resolves.toBe('B result');
        expect(setup.runs).toEqual({ a: 1, b: 1 });
      } finally {
        await setup.close();
      }
    });

    it('A’s renewLease() after the takeover raises LedgerFencedError, and so does its completion', async () => {
      let renewal: unknown = null;
      const setup = owners(store, async () => {
        renewal = await renewLease().then(
          () => 'renewed',
          (caught: unknown) => caught,
        );
        return 'A result';
      });
      try {
        const { a, bRecord } = await setup.takeover();

        setup.wakeA();
        await expect(a).rejects.toBeInstanceOf(LedgerFencedError);

        expect(renewal).toBeInstanceOf(LedgerFencedError);
        expect((renewal as LedgerFencedError).fence).toBe(1);
        expect(await setup.read(setup.storageB)).toEqual(bRecord);
        expect(bRecord).toMatchObject({ outcome: 'COMPLETED', fence: 2, result: 'B result' });
      } finally {
        await setup.close();
      }
    });

    it('A’s sideEffect after the takeover never reaches its external call', async () => {
      let aEffects = 0;
      const setup = owners(store, () =>
        sideEffect(() => {
          aEffects += 1;
          return 'A charged';
        }),
      );
      try {
        const { a, bRecord } = await setup.takeover();

        setup.wakeA();
        await expect(a).rejects.toBeInstanceOf(LedgerFencedError);

        expect(aEffects).toBe(0);
        expect(await setup.read(setup.storageA)).toEqual(bRecord);
        expect(bRecord).toMatchObject({ outcome: 'COMPLETED', boundary: 'not_crossed', fence: 2 });
      } finally {
        await setup.close();
      }
    });
  });
}
