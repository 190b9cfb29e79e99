/**
 * The worker-death evidence gate across processes, on every durable store: a worker is SIGKILLed
 * (dead, but its heartbeat is fresh) or SIGSTOPped (alive, only late) holding a claim of a class
 * whose expired claim may be reclaimed, and a fresh worker redispatches the same call.
 *
 * Without evidence of death the redispatch never takes the claim over: the paused owner resumes,
 * renews and completes, and the redispatch returns its result (one effect). An operator's
 * `markWorkerDead` is refused while the heartbeat is fresh, and with `overrideHeartbeat` it is
 * recorded durably (read back through a second connection) so the redispatch runs exactly once.
 */
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it, type OnTestFinishedHandler } from 'vitest';
import { createLedger, LedgerWorkerAliveError, type TransitionRecord, ticketKey } from '../../src/index.js';
import {
  AGENT_ID,
  createScratch,
  createWorkerGroup,
  type DurableBackend,
  durableBackends,
  opRefOf,
  POLICY_VERSION,
  readEffects,
  type WorkerConfig,
  type WorkerExit,
} from '../helpers/backends.js';

const backends = await durableBackends();
const LEASE_MS = 300;
/** Long enough that a heartbeat never goes stale during a test: only a death signal is evidence. */
const ALIVE_FOR_MS = 600_000;
const SPAWNING = { timeout: 180_000 };
const AUDIT = { by: 'oncall@example.com', reason: 'pod killed by the node drain' };

async function scenario(backend: DurableBackend, onTestFinished: (fn: OnTestFinishedHandler) => void) {
  const opened = await backend.open();
  const scratch = createScratch();
  const workers = createWorkerGroup(backend);
  const toolCallId = `call_${randomUUID()}`;
  const effectLog = scratch.file('provider.log');
  onTestFinished(async () => {
    workers.kill();
    scratch.remove();
    await opened.cleanup();
  });
  const base: WorkerConfig = {
    sideEffectClass: 'idempotent_mutate',
    toolCallId,
    args: { amount: 100, recipient: 'acct_123', idempotencyKey: `idem_${toolCallId}` },
    effectLog,
    leaseTtlMs: LEASE_MS,
    reclaimRequiresDeathSignal: true,
    presumedDeadAfterMs: ALIVE_FOR_MS,
  };
  const operator = createLedger({
    storage: opened.storage,
    agentId: AGENT_ID,
    policyVersion: POLICY_VERSION,
    leaseTtlMs: LEASE_MS,
    presumedDeadAfterMs: ALIVE_FOR_MS,
  });
  async function record(): Promise<TransitionRecord> {
    const found = await opened.storage.findByTicket(ticketKey({}, AGENT_ID, toolCallId));
    if (found === null) throw new Error(`No record for \`${toolCallId}\``);
    return found;
  }
  return {
    operator,
    record,
    scratch,
    /** The provider's log, checked on every read: never two effects of one call. */
    effects() {
      const effects = readEffects(effectLog);
      expect(new Set(effects.map((effect) => effect.toolCallId)).size, 'two effects of one call').toBe(effects.length);
      return effects;
    },
    run: (extra: Partial<WorkerConfig> = {}): Promise<WorkerExit> => workers.run({ ...base, ...extra }),
    spawn: (extra: Partial<WorkerConfig>) => workers.spawn({ ...base, ...extra }),
    async until(predicate: (found: TransitionRecord) => boolean): Promise<TransitionRecord> {
      for (;;) {
        const found = await opened.storage.findByTicket(ticketKey({}, AGENT_ID, toolCallId));
        if (found !== null && predicate(found)) return found;
        await sleep(10);
      }
    },
    async leaseExpiry(): Promise<void> {
      const { leaseUntil } = await record();
      if (leaseUntil === null) throw new Error('The claim has an unbounded lease');
      await sleep(Math.max(0, leaseUntil - Date.now()) + 25);
    },
  };
}

describe.concurrent.each(backends)('$name: worker-death evidence', SPAWNING, (backend) => {
  afterAll(() => backend.dispose());

  it('a SIGKILLed owner with a fresh heartbeat is not reclaimed until an operator marks it dead, then the call runs once', async ({
    onTestFinished,
  }) => {
    const s = await scenario(backend, onTestFinished);
    const crashed = await s.run({ crashAt: 'after-claim' });
    expect(crashed.signal, crashed.stderr).toBe('SIGKILL');
    await s.leaseExpiry();

    const waited = await s.run({ pollTimeoutMs: 100 });
    const dead = await s.record();
    const refused = await s.operator
      .markWorkerDead({ owner: dead.owner ?? '' }, AUDIT)
      .catch((error: unknown) => error);
    const [marked] = await s.operator.markWorkerDead(
      { owner: dead.owner ?? '' },
      { ...AUDIT, overrideHeartbeat: true },
    );
    // Durable: another connection to the store sees the signal.
    const second = await backend.open();
    const seen = await second.storage.get(dead.key).finally(() => second.cleanup());
    const rerun = await s.run();

    expect(waited.output, waited.stderr).toMatchObject({ ok: false, code: 'ledger_worker_alive' });
    expect(dead).toMatchObject({ outcome: 'IN_FLIGHT', attempts: 1, fence: 1 });
    expect(refused).toBeInstanceOf(LedgerWorkerAliveError);
    expect(marked?.key).toBe(dead.key);
    expect(seen?.workerDeath).toMatchObject({
      owner: dead.owner,
      by: AUDIT.by,
      reason: AUDIT.reason,
      overrideHeartbeat: true,
    });
    expect(rerun.output).toEqual({
      ok: true,
      result: { op: opRefOf(dead.ticket ?? ''), amount: 100, executedBy: rerun.pid },
    });
    expect(s.effects()).toHaveLength(1);
    expect(await s.record()).toMatchObject({ outcome: 'COMPLETED', attempts: 2, fence: 3 });
  });

  it('a SIGSTOPped owner is waited for, not reclaimed: it resumes and completes, and the redispatch never runs the body', async ({
    onTestFinished,
  }) => {
    const s = await scenario(backend, onTestFinished);
    const zombie = s.spawn({ pauseAt: 'after-claim' });
    await s.until((found) => found.outcome === 'IN_FLIGHT');
    await s.leaseExpiry();
    const start = s.scratch.file('start');
    const redispatch = s.spawn({ startSignal: start });
    await redispatch.ready;

    writeFileSync(start, '');
    // Give the redispatch time to meet the expired claim; a reclaim would show as fence 2.
    await sleep(500);
    const whilePaused = await s.record();
    process.kill(zombie.pid, 'SIGCONT');
    const [resumed, waited] = await Promise.all([zombie.exit, redispatch.exit]);

    expect(whilePaused).toMatchObject({ outcome: 'IN_FLIGHT', fence: 1, attempts: 1 });
    const result = { op: opRefOf(whilePaused.ticket ?? ''), amount: 100, executedBy: zombie.pid };
    expect(resumed.output, resumed.stderr).toEqual({ ok: true, result });
    // The resumed owner renews its lease and marks `maybe_crossed` in either order: the redispatch
    // then returns its result, or meets an expired claim past its boundary and hard-blocks. It
    // never runs the body.
    expect([JSON.stringify({ ok: true, result }), 'ledger_hard_block']).toContain(
      waited.output?.ok === false ? waited.output.code : JSON.stringify(waited.output),
    );
    expect(s.effects()).toEqual([expect.objectContaining({ pid: zombie.pid })]);
    expect(await s.record()).toMatchObject({ outcome: 'COMPLETED', fence: 1, attempts: 1 });
  });
});
