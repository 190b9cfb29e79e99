/**
 * A client may send a write twice: ioredis, by default, sends the commands in flight when a
 * connection died again once it is back, and answers the caller with the second copy's reply. The
 * second copy of a create meets the record the first made; the second copy of a compare-and-set
 * loses to the first. Either way the write is the claim's own, and the call must go on as if the
 * first answer had arrived: no wait on its own lease, no report of being fenced, one run.
 *
 * Owner ids are what a claim recognises its own record by, so they must never repeat, even across
 * ledgers given the same `ownerId`.
 */
import { describe, expect, it } from 'vitest';
import {
  createLedger,
  createManualClock,
  createMemoryStorage,
  type LedgerOptions,
  type LedgerStorage,
  LedgerStorageUnavailableError,
  sideEffect,
} from '../../src/index.js';
import { deferred, until } from './ledger-helpers.js';

const T = 1_767_225_600_000;
const SPEC = { name: 'send_invoice', sideEffectClass: 'non_idempotent_mutate' } as const;

/** A storage that sends every create or update (as chosen) twice and answers with the second reply. */
function resending(inner: LedgerStorage, which: { create?: boolean; update?: boolean }): LedgerStorage {
  return {
    ...inner,
    get: (key) => inner.get(key),
    findByTicket: (ticketKey) => inner.findByTicket(ticketKey),
    list: (query) => inner.list(query),
    close: () => inner.close(),
    async create(record) {
      if (which.create === true) await inner.create(record);
      return inner.create(record);
    },
    async update(key, expectedVersion, next) {
      if (which.update === true) await inner.update(key, expectedVersion, next);
      return inner.update(key, expectedVersion, next);
    },
  };
}

/** Settle `promise`, or fail after a second of real time: a call waiting on a frozen clock never ends. */
function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not end`)), 1_000);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * Two ledgers, one over `ownerStorage` and one over `otherStorage`, on one transition: the owner's
 * body is running (held until `release()`); `other()` dispatches the same call on the second ledger.
 */
async function ownerRunning(
  ownerStorage: LedgerStorage,
  otherStorage: LedgerStorage,
  options: Omit<LedgerOptions, 'storage'>,
) {
  const held = deferred();
  let runs = 0;
  const owner = createLedger({ storage: ownerStorage, ...options }).tool(SPEC, async () => {
    runs += 1;
    await held.promise;
    return 'first';
  });
  const other = createLedger({ storage: otherStorage, ...options }).tool(SPEC, async () => {
    runs += 1;
    return 'second';
  });
  const first = owner({}, { toolCallId: 'call_1' });
  await until(() => runs === 1, 'the owner to start');
  return { first, other: () => other({}, { toolCallId: 'call_1' }), release: () => held.resolve(), runs: () => runs };
}

describe('a write the client sent twice', () => {
  for (const body of ['plain', 'sideEffect'] as const) {
    /** One call over memory storage whose client sends `which` writes twice, on a clock that never moves. */
    async function sendTwice(which: { create?: boolean; update?: boolean }) {
      const inner = createMemoryStorage();
      // A claim that took its own record for another owner's would wait on this clock forever.
      const ledger = createLedger({
        storage: resending(inner, which),
        agentId: 'agent',
        policyVersion: 'p1',
        clock: createManualClock(T),
      });
      let runs = 0;
      const send = ledger.tool(SPEC, async (args: { to: string }) => {
        runs += 1;
        return body === 'plain' ? { sent: args.to } : sideEffect(() => ({ sent: args.to }));
      });
      await expect(within(send({ to: 'ada' }, { toolCallId: 'call_1' }), 'the call')).resolves.toEqual({ sent: 'ada' });
      expect(runs).toBe(1);
      const [record] = (await inner.list({})).records;
      return { send, record, runs: () => runs };
    }

    it(`create sent twice: the claim runs its own record at once (${body} body)`, async () => {
      const { record } = await sendTwice({ create: true });
      expect(record).toMatchObject({ outcome: 'COMPLETED', result: { sent: 'ada' }, fence: 1 });
    });

    it(`every update sent twice: the call returns its result, not a fencing error (${body} body)`, async () => {
      const { send, record, runs } = await sendTwice({ update: true });
      expect(record).toMatchObject({ outcome: 'COMPLETED', result: { sent: 'ada' }, owner: null });
      // The replay reads the stored result.
      await expect(send({ to: 'ada' }, { toolCallId: 'call_1' })).resolves.toEqual({ sent: 'ada' });
      expect(runs()).toBe(1);
    });
  }

  it('a create sent twice that meets another claim’s record still waits for that claim', async () => {
    const storage = createMemoryStorage();
    // Real time, short polls: the waiting ledger is on another storage object, so only its polls see the result.
    const options = { agentId: 'agent', policyVersion: 'p1', pollIntervalMs: 5, pollMaxIntervalMs: 20 };
    const race = await ownerRunning(storage, resending(storage, { create: true }), options);
    const second = race.other();
    race.release();
    await expect(race.first).resolves.toBe('first');
    await expect(second).resolves.toBe('first');
    expect(race.runs()).toBe(1);
  });
});

describe('owner ids', () => {
  it('never repeat across ledgers given the same ownerId, and start with it', async () => {
    const storage = createMemoryStorage();
    const owners: string[] = [];
    for (let i = 0; i < 3; i++) {
      const ledger = createLedger({ storage, agentId: 'agent', policyVersion: 'p1', ownerId: 'payments' });
      const tool = ledger.tool(SPEC, async () => {
        const running = (await storage.list({})).records.find((record) => record.outcome === 'IN_FLIGHT');
        owners.push(running?.owner ?? '');
      });
      await tool({ i }, { toolCallId: `call_${i}` });
    }
    expect(new Set(owners).size).toBe(3);
    for (const owner of owners) expect(owner).toMatch(/^payments:[0-9a-f]{16}#1$/);
  });

  it('a claim whose create failed never takes another ledger’s record for its own, even with the same ownerId', async () => {
    const storage = createMemoryStorage();
    const options = { agentId: 'agent', policyVersion: 'p1', ownerId: 'payments', clock: createManualClock(T) };
    // The second worker's create is lost on the way: it never lands, and no answer comes back.
    const lossy: LedgerStorage = {
      ...storage,
      get: (key) => storage.get(key),
      findByTicket: (ticketKey) => storage.findByTicket(ticketKey),
      list: (query) => storage.list(query),
      update: (key, version, next) => storage.update(key, version, next),
      close: () => storage.close(),
      create: async () => {
        throw new Error('Socket closed unexpectedly');
      },
    };
    const race = await ownerRunning(storage, lossy, options);
    // Both are the first claim of their ledger: only the random part tells their owner ids apart.
    await expect(race.other()).rejects.toBeInstanceOf(LedgerStorageUnavailableError);
    expect(race.runs()).toBe(1);
    race.release();
    await expect(race.first).resolves.toBe('first');
  });
});
