/**
 * A slow tool redispatched while it still runs, on real stores and in real time: the redispatch
 * waits for the one result however long the body takes, as long as the owner renews its lease;
 * it goes back to the claim path (a hard block for a payment) only once the owner's renewals stop.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createLedger,
  LedgerHardBlockError,
  type LedgerOptions,
  type LedgerStorage,
  type TransitionRecord,
  ticketKey,
} from '../../src/index.js';
import {
  AGENT_ID,
  type ChargeArgs,
  chargeSpec,
  createScratch,
  createWorkerGroup,
  durableBackends,
  POLICY_VERSION,
  readEffects,
} from '../helpers/backends.js';
import { rejectionOf, track } from './ledger-helpers.js';

// SQLite through one driver, Redis through one client and PostgreSQL: the wait is the ledger's,
// and the stores differ only in how a renewal reaches the waiter.
const backends = (await durableBackends()).filter((backend) => ['sqlite', 'redis', 'postgres'].includes(backend.name));
/**
 * A lease the 2-second body outlives twice over: a poll timeout equal to the lease gave up after
 * one second. Not shorter in real time: a payment's peer that finds the lease expired hard-blocks,
 * so a renewal late by two thirds of the lease (a loaded machine stalls a process that long) would
 * fail the test for the wrong reason. The 300 ms lease runs on a manual clock in poll-timeout.test.ts.
 */
const SHORT_LEASE_MS = 1_000;
const BODY_MS = 2_000;
const SLOW = { timeout: 60_000 };
/** A payment that passes no provider idempotency key. */
const PAYMENT = 'non_idempotent_mutate';

const argsOf = (toolCallId: string): ChargeArgs => ({
  amount: 100,
  recipient: 'acct_123',
  idempotencyKey: `idem_${toolCallId}`,
});

describe.concurrent.each(backends)('$name: a slow call redispatched while it runs', SLOW, (backend) => {
  afterAll(() => backend.dispose());

  for (const [label, lease] of [
    [`a ${SHORT_LEASE_MS} ms lease`, { leaseTtlMs: SHORT_LEASE_MS }],
    ['the library defaults', {}],
  ] as const) {
    it(`with ${label}, the redispatch waits and gets the one result of a ${BODY_MS} ms body`, async ({
      onTestFinished,
    }) => {
      const [first, second] = [await backend.open(), await backend.open()];
      onTestFinished(async () => {
        await first.cleanup();
        await second.cleanup();
      });
      const options: Pick<LedgerOptions, 'agentId' | 'policyVersion' | 'leaseTtlMs'> = {
        agentId: AGENT_ID,
        policyVersion: POLICY_VERSION,
        ...lease,
      };
      let effects = 0;
      const charge = async (args: ChargeArgs) => {
        await sleep(BODY_MS);
        effects++;
        return { charged: args.amount, effect: effects };
      };
      const ownerTool = createLedger({ ...options, storage: first.storage }).tool(chargeSpec(PAYMENT), charge);
      const peerTool = createLedger({ ...options, storage: second.storage }).tool(chargeSpec(PAYMENT), charge);
      const toolCallId = `call_${randomUUID()}`;

      const owner = ownerTool(argsOf(toolCallId), { toolCallId });
      const claimed = await waitForRecord(second.storage, toolCallId);
      const peer = await Promise.allSettled([peerTool(argsOf(toolCallId), { toolCallId })]);

      expect(claimed.outcome).toBe('IN_FLIGHT');
      expect(peer).toEqual([{ status: 'fulfilled', value: { charged: 100, effect: 1 } }]);
      await expect(owner).resolves.toEqual({ charged: 100, effect: 1 });
      expect(effects).toBe(1);
    });
  }

  it('a peer waits while the owner process renews, and hard-blocks the payment once it is SIGKILLed', async ({
    onTestFinished,
  }) => {
    const opened = await backend.open();
    const scratch = createScratch();
    const workers = createWorkerGroup(backend);
    onTestFinished(async () => {
      workers.kill();
      scratch.remove();
      await opened.cleanup();
    });
    const toolCallId = `call_${randomUUID()}`;
    const effectLog = scratch.file('provider.log');
    // The owner's body sleeps far longer than the test runs: only the kill ends it.
    const ownerRun = workers.spawn({
      sideEffectClass: PAYMENT,
      toolCallId,
      args: argsOf(toolCallId),
      effectLog,
      leaseTtlMs: SHORT_LEASE_MS,
      bodyDelayMs: 600_000,
    });
    await waitForRecord(opened.storage, toolCallId);
    const ledger = createLedger({
      storage: opened.storage,
      agentId: AGENT_ID,
      policyVersion: POLICY_VERSION,
      leaseTtlMs: SHORT_LEASE_MS,
    });
    const peerTool = ledger.tool(chargeSpec(PAYMENT), () => {
      throw new Error('The body ran again');
    });

    const peerStart = Date.now();
    const peer = track(peerTool(argsOf(toolCallId), { toolCallId }));
    // Renewals keep coming for several leases after the peer started waiting.
    const renewed = await waitForRecord(
      opened.storage,
      toolCallId,
      (record) => (record.lastHeartbeatAt ?? 0) > peerStart + 3 * SHORT_LEASE_MS,
    );
    const settledWhileRenewing = peer.settled;
    workers.kill();
    const ownerExit = await ownerRun.exit;
    const error = await rejectionOf(peer.promise);

    expect(renewed.outcome).toBe('IN_FLIGHT');
    expect(settledWhileRenewing).toBe(false);
    expect(ownerExit.signal).toBe('SIGKILL');
    expect(error).toBeInstanceOf(LedgerHardBlockError);
    expect(readEffects(effectLog)).toEqual([]);
  });
});

/** Poll the store (real time, no assertion on it) until the call's record exists and satisfies `predicate`. */
async function waitForRecord(
  storage: LedgerStorage,
  toolCallId: string,
  predicate: (record: TransitionRecord) => boolean = () => true,
): Promise<TransitionRecord> {
  for (;;) {
    const record = await storage.findByTicket(ticketKey({}, AGENT_ID, toolCallId));
    if (record !== null && predicate(record)) return record;
    await sleep(10);
  }
}
