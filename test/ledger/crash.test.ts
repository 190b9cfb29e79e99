/**
 * Crashes at named points: a worker SIGKILLs itself, then a fresh worker redispatches the same call
 * (same tool call id, same arguments) and the ledger must neither lose nor repeat the effect.
 *
 * The fake provider's log is the ground truth: it never holds two effects of one transition (the
 * NOT_EXECUTED proof reruns a call whose first attempt provably had none).
 *
 * The last tests pause an owner (SIGSTOP) instead of killing it: a lease expiry proves it late, not
 * dead, and the ledger cannot fence what it does after its last write. NOT_EXECUTED is then safe only
 * when it is final at the provider: the reconciler voids the attempt's ref first (each attempt has
 * its own), so the resumed owner's provider call is refused; or, for `keyed_mutate`, both attempts
 * send one idempotency key and the provider dedupes the late one.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it, type OnTestFinishedHandler } from 'vitest';
import { createLedger, type SideEffectClass, type TransitionRecord, ticketKey } from '../../src/index.js';
import { checkHistory, formatAnomalies, parseHistory } from '../../src/testing/index.js';
import {
  AGENT_ID,
  type CrashPoint,
  chargeSpec,
  createScratch,
  createWorkerGroup,
  type DurableBackend,
  durableBackends,
  opRefOf,
  POLICY_VERSION,
  type ProviderEffect,
  readEffects,
  readVoids,
  type WorkerConfig,
  type WorkerExit,
} from '../helpers/backends.js';
import { countHistory, writeHistoryReport } from '../helpers/history-report.js';

// Redis Cluster too, on a cluster of this file's own (ports 7181–7186).
const backends = await durableBackends(process.env, { clusterPort: 7181 });
/** The crashing worker's lease: short, so the tests that need it expired wait little. */
const SHORT_LEASE_MS = 300;
/** A lease no redispatch outlives, for the test that must meet it held. */
const HELD_LEASE_MS = 600_000;
/** Each test spawns two or three worker processes; a starved CI machine can take a while. */
const SPAWNING = { timeout: 180_000 };

type OnFinished = (fn: OnTestFinishedHandler) => void;

/** One crash scenario: a store, a call, a provider log and the workers that touch them. */
async function scenario(backend: DurableBackend, onTestFinished: OnFinished, sideEffectClass: SideEffectClass) {
  const opened = await backend.open();
  const scratch = createScratch();
  const workers = createWorkerGroup(backend);
  const toolCallId = `call_${randomUUID()}`;
  const effectLog = scratch.file('provider.log');
  const historyFile = scratch.file('history.jsonl');
  onTestFinished(async () => {
    workers.kill();
    try {
      // Every worker's calls and effects, judged as one history (killed workers may not settle).
      const events = existsSync(historyFile) ? parseHistory([readFileSync(historyFile, 'utf8')]) : [];
      const record = await opened.storage.findByTicket(ticketKey({}, AGENT_ID, toolCallId));
      const check = checkHistory(events, {
        crashed: workers.crashed(),
        toolErrors: ['ProviderRejectedError'],
        records: { [toolCallId]: record },
      });
      countHistory('crash', backend.name, check);
      expect(check.anomalies, formatAnomalies(check.anomalies)).toEqual([]);
    } finally {
      scratch.remove();
      await opened.cleanup();
    }
  });
  const base: WorkerConfig = {
    sideEffectClass,
    toolCallId,
    args: { amount: 100, recipient: 'acct_123', idempotencyKey: `idem_${toolCallId}` },
    effectLog,
    historyFile,
    leaseTtlMs: SHORT_LEASE_MS,
  };

  async function record(): Promise<TransitionRecord> {
    const found = await opened.storage.findByTicket(ticketKey({}, AGENT_ID, toolCallId));
    if (found === null) throw new Error(`No record for \`${toolCallId}\``);
    return found;
  }

  return {
    toolCallId,
    opRef: opRefOf(toolCallId),
    /** Dispatch the call from this process, with a body that fails the test if it runs. */
    callHere(): Promise<unknown> {
      const ledger = createLedger({ storage: opened.storage, agentId: AGENT_ID, policyVersion: POLICY_VERSION });
      const tool = ledger.tool(chargeSpec(sideEffectClass), () => {
        throw new Error('The body ran again');
      });
      return tool(base.args, { toolCallId });
    },
    record,
    /** The provider's log, checked on every read: never two effects of one transition. */
    effects(): ProviderEffect[] {
      const effects = readEffects(effectLog);
      expectNoDoubleEffect(effects);
      return effects;
    },
    /** The refs the provider voided. */
    voids: (): string[] => readVoids(effectLog),
    /** Run a worker that SIGKILLs itself at `point`, and check that it did. */
    async crash(point: CrashPoint, extra: Partial<WorkerConfig> = {}): Promise<WorkerExit> {
      const exit = await workers.run({ ...base, ...extra, crashAt: point });
      expect(exit.signal, exit.stderr).toBe('SIGKILL');
      expect(exit.output).toBeNull();
      return exit;
    },
    /** Start a worker on the same call without waiting for it. */
    spawn: (extra: Partial<WorkerConfig>) => workers.spawn({ ...base, ...extra }),
    /** Wait until the stored record satisfies `predicate`. */
    async until(predicate: (record: TransitionRecord) => boolean): Promise<TransitionRecord> {
      for (;;) {
        const found = await opened.storage.findByTicket(ticketKey({}, AGENT_ID, toolCallId));
        if (found !== null && predicate(found)) return found;
        await sleep(10);
      }
    },
    /** Run a fresh worker on the same call to its end. */
    async redispatch(extra: Partial<WorkerConfig> = {}): Promise<WorkerExit> {
      const exit = await workers.run({ ...base, ...extra });
      expect(exit, exit.stderr).toMatchObject({ code: 0, signal: null });
      return exit;
    },
    /** Wait, in real time, until the crashed owner's lease has passed. */
    async leaseExpiry(): Promise<void> {
      const { leaseUntil } = await record();
      if (leaseUntil === null) throw new Error('The crashed claim has an unbounded lease');
      await sleep(Math.max(0, leaseUntil - Date.now()) + 25);
    },
  };
}

/** The ground truth: no transition has two effects in the provider's log. */
function expectNoDoubleEffect(effects: readonly ProviderEffect[]): void {
  const calls = effects.map((effect) => effect.toolCallId);
  expect(calls, 'the provider log holds two effects of one transition').toEqual([...new Set(calls)]);
}

function expectHardBlock(exit: WorkerExit): string {
  expect(exit.output).toMatchObject({ ok: false, code: 'ledger_hard_block', name: 'LedgerHardBlockError' });
  return exit.output?.ok === false ? exit.output.message : '';
}

describe.concurrent.each(backends)('$name: crash and redispatch', SPAWNING, (backend) => {
  afterAll(async () => {
    writeHistoryReport('crash', backend.name);
    await backend.dispose();
  });

  it('after-claim: while the dead owner holds its lease, a redispatch polls (and times out)', async ({
    onTestFinished,
  }) => {
    // `idempotent_mutate` is the class whose expired claim may be reclaimed: before expiry it must still wait.
    const s = await scenario(backend, onTestFinished, 'idempotent_mutate');
    await s.crash('after-claim', { leaseTtlMs: HELD_LEASE_MS });

    const exit = await s.redispatch({ leaseTtlMs: 50, pollTimeoutMs: 50 });

    expect(exit.output).toMatchObject({ ok: false, code: 'ledger_poll_timeout' });
    expect(await s.record()).toMatchObject({ outcome: 'IN_FLIGHT', boundary: 'not_crossed', attempts: 1 });
    expect(s.effects()).toEqual([]);
  });

  it('after-claim, `idempotent_mutate`: once the lease expires the redispatch reclaims and runs once', async ({
    onTestFinished,
  }) => {
    const s = await scenario(backend, onTestFinished, 'idempotent_mutate');
    await s.crash('after-claim');
    expect(await s.record()).toMatchObject({ outcome: 'IN_FLIGHT', boundary: 'not_crossed', attempts: 1 });
    await s.leaseExpiry();

    const exit = await s.redispatch();

    expect(exit.output).toEqual({ ok: true, result: { op: s.opRef, amount: 100, executedBy: exit.pid } });
    expect(s.effects()).toHaveLength(1);
    expect(await s.record()).toMatchObject({ outcome: 'COMPLETED', boundary: 'crossed', attempts: 2, fence: 2 });
  });

  it.for(['keyed_mutate', 'non_idempotent_mutate', 'irreversible'] as const)(
    'after-claim, `%s`: once the lease expires the redispatch hard-blocks and nothing runs',
    async (sideEffectClass, { onTestFinished }) => {
      const s = await scenario(backend, onTestFinished, sideEffectClass);
      await s.crash('after-claim');
      await s.leaseExpiry();

      const exit = await s.redispatch();

      expect(expectHardBlock(exit)).toContain('boundary `not_crossed`');
      expect(s.effects()).toEqual([]);
      expect(await s.record()).toMatchObject({ outcome: 'IN_FLIGHT', boundary: 'not_crossed', attempts: 1, fence: 1 });
    },
  );

  it('inside-side-effect-before-provider: no effect, but maybe_crossed, so even a reclaimable class hard-blocks', async ({
    onTestFinished,
  }) => {
    // `idempotent_mutate` would be reclaimed had the boundary not been written before the provider call.
    const s = await scenario(backend, onTestFinished, 'idempotent_mutate');
    await s.crash('inside-side-effect-before-provider');
    expect(s.effects()).toEqual([]);
    expect(await s.record()).toMatchObject({
      outcome: 'IN_FLIGHT',
      boundary: 'maybe_crossed',
      externalOperationRef: null,
    });
    await s.leaseExpiry();

    // A reconciler cannot help without a recorded ref: there is nothing to ask the provider about.
    const exit = await s.redispatch({ reconciler: 'provider-log' });

    expect(expectHardBlock(exit)).toContain('boundary `maybe_crossed`');
    expect(s.effects()).toEqual([]);
    expect(await s.record()).toMatchObject({ outcome: 'IN_FLIGHT', boundary: 'maybe_crossed', attempts: 1 });
  });

  it('after-provider-before-completion: hard-blocks naming outcome and ref; a reconciler completes it without a second effect', async ({
    onTestFinished,
  }) => {
    const s = await scenario(backend, onTestFinished, 'keyed_mutate');
    const crashed = await s.crash('after-provider-before-completion');
    const [effect] = s.effects();
    expect(effect).toMatchObject({ op: s.opRef, pid: crashed.pid });
    expect(await s.record()).toMatchObject({
      outcome: 'IN_FLIGHT',
      boundary: 'maybe_crossed',
      externalOperationRef: s.opRef,
    });
    await s.leaseExpiry();

    const blocked = await s.redispatch();
    const message = expectHardBlock(blocked);
    expect(message).toMatch(/outcome `(IN_FLIGHT|EXPIRED)`/);
    expect(message).toContain(`external ref \`${s.opRef}\``);
    expect(s.effects()).toHaveLength(1);

    const reconciled = await s.redispatch({ reconciler: 'provider-log' });

    expect(reconciled.output).toEqual({ ok: true, result: effect?.result });
    expect(s.effects()).toHaveLength(1);
    expect(await s.record()).toMatchObject({
      outcome: 'COMPLETED',
      boundary: 'crossed',
      result: effect?.result,
      attempts: 1,
    });
  });

  it('inside-side-effect-before-provider with the ref recorded first: a NOT_EXECUTED reconcile runs it exactly once more', async ({
    onTestFinished,
  }) => {
    const s = await scenario(backend, onTestFinished, 'keyed_mutate');
    await s.crash('inside-side-effect-before-provider', { recordRef: 'before-provider' });
    expect(s.effects()).toEqual([]);
    expect(await s.record()).toMatchObject({ boundary: 'maybe_crossed', externalOperationRef: s.opRef });
    await s.leaseExpiry();

    const rerun = await s.redispatch({ reconciler: 'provider-log', recordRef: 'before-provider' });

    expect(rerun.output).toEqual({ ok: true, result: { op: s.opRef, amount: 100, executedBy: rerun.pid } });
    expect(s.effects()).toHaveLength(1);
    expect(await s.record()).toMatchObject({ outcome: 'COMPLETED', boundary: 'crossed', attempts: 2, fence: 2 });

    // Any later dispatch (here in this process) gets the stored result.
    expect(await s.callHere()).toEqual(rerun.output?.ok === true ? rerun.output.result : null);
    expect(s.effects()).toHaveLength(1);
  });

  it('after-completion: the redispatch returns the stored result; still one effect', async ({ onTestFinished }) => {
    const s = await scenario(backend, onTestFinished, 'non_idempotent_mutate');
    const crashed = await s.crash('after-completion');
    expect(await s.record()).toMatchObject({ outcome: 'COMPLETED', boundary: 'crossed' });

    const exit = await s.redispatch();

    expect(exit.output).toEqual({ ok: true, result: { op: s.opRef, amount: 100, executedBy: crashed.pid } });
    expect(s.effects()).toHaveLength(1);
  });

  it('paused after recording its ref: a voiding reconciler makes NOT_EXECUTED final, and the provider refuses the resumed owner', async ({
    onTestFinished,
  }) => {
    const s = await scenario(backend, onTestFinished, 'non_idempotent_mutate');
    // Each attempt charges under its own ref (`op_<call>_f<fence>`), so voiding one never blocks the next.
    const attempt: Partial<WorkerConfig> = { recordRef: 'before-provider', attemptRefs: true };
    const firstRef = opRefOf(s.toolCallId, 1);
    const zombie = s.spawn({ ...attempt, pauseAt: 'inside-side-effect-before-provider' });
    // The ref is durable; the worker stops itself right after writing it, before its provider call.
    expect(await s.until((record) => record.externalOperationRef !== null)).toMatchObject({
      boundary: 'maybe_crossed',
      externalOperationRef: firstRef,
      fence: 1,
    });
    await s.leaseExpiry();

    const rerun = await s.redispatch({ ...attempt, reconciler: 'provider-log-voiding' });

    const rerunRef = opRefOf(s.toolCallId, 2);
    const result = { op: rerunRef, amount: 100, executedBy: rerun.pid };
    expect(rerun.output).toEqual({ ok: true, result });
    expect(s.voids()).toEqual([firstRef]);

    process.kill(zombie.pid, 'SIGCONT');
    const resumed = await zombie.exit;

    expect(resumed, resumed.stderr).toMatchObject({
      code: 0,
      signal: null,
      output: { ok: false, code: 'provider_rejected', name: 'ProviderRejectedError' },
    });
    expect(s.effects()).toEqual([{ op: rerunRef, toolCallId: s.toolCallId, pid: rerun.pid, result }]);
    expect(await s.record()).toMatchObject({
      outcome: 'COMPLETED',
      boundary: 'crossed',
      externalOperationRef: rerunRef,
      result,
      attempts: 2,
      fence: 2,
    });
    expect(await s.callHere()).toEqual(result);
  });

  it('`keyed_mutate` paused after recording its ref: one idempotency key for both attempts, so the provider dedupes the resumed owner, whose completion is fenced', async ({
    onTestFinished,
  }) => {
    const s = await scenario(backend, onTestFinished, 'keyed_mutate');
    // One ref and one idempotency key for both attempts; the provider returns the first effect's result.
    const attempt: Partial<WorkerConfig> = { recordRef: 'before-provider', providerDedupe: true };
    const zombie = s.spawn({ ...attempt, pauseAt: 'inside-side-effect-before-provider' });
    await s.until((record) => record.externalOperationRef !== null);
    await s.leaseExpiry();

    // NOT_EXECUTED without a void is not final; here the provider key is what makes a late attempt harmless.
    const rerun = await s.redispatch({ ...attempt, reconciler: 'provider-log' });

    const result = { op: s.opRef, amount: 100, executedBy: rerun.pid };
    expect(rerun.output).toEqual({ ok: true, result });

    process.kill(zombie.pid, 'SIGCONT');
    const resumed = await zombie.exit;

    expect(resumed, resumed.stderr).toMatchObject({
      code: 0,
      signal: null,
      output: { ok: false, code: 'ledger_fenced', name: 'LedgerFencedError' },
    });
    expect(s.effects()).toEqual([
      { op: s.opRef, toolCallId: s.toolCallId, pid: rerun.pid, result, idempotencyKey: `idem_${s.toolCallId}` },
    ]);
    expect(s.voids()).toEqual([]);
    expect(await s.record()).toMatchObject({
      outcome: 'COMPLETED',
      boundary: 'crossed',
      result,
      attempts: 2,
      fence: 2,
    });
  });
});
