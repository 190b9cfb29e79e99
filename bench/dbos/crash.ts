/**
 * Replay after a crash: a child process starts calls whose bodies hang, tells the parent each one
 * has entered its body, and is SIGKILLed; the parent then brings every call to an end one at a time
 * and times each: hyphae redispatches the same call (same tool call id), DBOS resumes the pending
 * workflow (`DBOS.resumeWorkflow` onto a queue, then `getResult`).
 */
import { fork } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { LedgerHardBlockError } from '../../src/index.js';
import type { PostgresStorage } from '../../src/storage/postgres.js';
import { Histogram, type Stats } from '../lib/histogram.js';
import {
  ARGS,
  CRASHED_LEASE_MS,
  FAST_QUEUE,
  type HyphaeHang,
  hangStepBodies,
  hyphaeLedger,
  hyphaeStorage,
  hyphaeTool,
  launchDbos,
  oneStepWorkflow,
} from './systems.js';

/** What a child runs until it is killed (`hyphae-body-default`: at the default lease, owner id = its id prefix). */
export type ChildKind = `hyphae-${HyphaeHang}` | 'hyphae-body-default' | 'dbos';

/** A recovery case: who crashed, and how the parent ends each call. */
export interface CrashCase {
  readonly name: string;
  readonly child: ChildKind;
  /** Calls per killed child. */
  readonly perChild: number;
  /** End the call `id` after the crash; resolves when it is over (result or the expected refusal). */
  recover(id: string): Promise<void>;
  /** Untimed, before and after the recoveries of a round (the 1 ms queue exists only while it is used). */
  prepare?(): Promise<void>;
  finish?(): Promise<void>;
  /**
   * Timed from the kill: no pause for the lease first, and each call's time runs from the kill to its
   * end (calls are brought to an end one after another), so it holds every wait a user would see.
   */
  readonly fromKill?: boolean;
  /** Timed from the kill, before the first call: what a restarted worker does at startup. */
  restart?(idPrefix: string): Promise<void>;
  /** Rounds this case runs at most (a case that waits minutes runs once). */
  readonly rounds?: number;
}

/**
 * The child: start `count` calls named `<idPrefix>-<n>` whose bodies hang, send `{ entered }` for
 * each, and wait to be killed. `where` is the hyphae table prefix, or the DBOS executor id.
 */
export async function runChild(kind: ChildKind, where: string, count: number, idPrefix: string): Promise<void> {
  const entered = () => process.send?.({ entered: true });
  if (kind === 'dbos') {
    hangStepBodies(entered);
    await launchDbos(where);
    for (let n = 0; n < count; n++) void DBOS.startWorkflow(oneStepWorkflow, { workflowID: `${idPrefix}-${n}` })(ARGS);
    return;
  }
  const tool = hyphaeTool(hyphaeStorage(where), {
    where: kind === 'hyphae-sideEffect' ? 'sideEffect' : 'body',
    entered,
    ...(kind === 'hyphae-body-default' ? { lease: 'default' as const, ownerId: idPrefix } : {}),
  });
  for (let n = 0; n < count; n++) void tool(ARGS, { toolCallId: `${idPrefix}-${n}` }).catch(() => undefined);
}

/**
 * Fork this script as a child of `kind`, wait until all its calls are in their bodies, SIGKILL it;
 * resolves with the time of the kill once the child is gone.
 */
async function crashChild(kind: ChildKind, where: string, count: number, idPrefix: string): Promise<number> {
  const script = process.argv[1] ?? '';
  const child = fork(script, ['--child', kind, where, String(count), idPrefix], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let entered = 0;
    child.on('message', () => {
      if (++entered === count) resolve();
    });
    child.once('exit', (code, signal) => reject(new Error(`child ${kind} exited (${code ?? signal}) before it hung`)));
  });
  const killedAt = performance.now();
  child.kill('SIGKILL');
  await exited;
  return killedAt;
}

/** The recovery cases. `storage` is the parent's hyphae store on the same tables the hyphae children use. */
export function crashCases(storage: PostgresStorage, quick: boolean): CrashCase[] {
  const tool = hyphaeTool(storage);
  const ledger = hyphaeLedger(storage);
  const redispatch = async (id: string) => {
    await tool(ARGS, { toolCallId: id });
  };
  const fromKill: CrashCase[] = [
    {
      name: 'hyphae, from the kill, lease 250 ms: the redispatch waits out the lease, reclaims and runs',
      child: 'hyphae-body',
      perChild: quick ? 5 : 20,
      fromKill: true,
      recover: redispatch,
    },
    {
      name: 'hyphae, from the kill, default lease, the restart marks the dead worker: markWorkerDead, redispatch, run',
      child: 'hyphae-body-default',
      perChild: quick ? 5 : 20,
      fromKill: true,
      async restart(idPrefix) {
        await ledger.markWorkerDead(
          { owner: idPrefix },
          { by: 'startup', reason: 'the worker restarted', overrideHeartbeat: true },
        );
      },
      recover: redispatch,
    },
    {
      name: 'DBOS, from the kill, defaults: resumeWorkflow, getResult',
      child: 'dbos',
      perChild: quick ? 2 : 5,
      fromKill: true,
      async recover(id) {
        await (await DBOS.resumeWorkflow(id)).getResult();
      },
    },
    // The default lease is 5 minutes: one call, once, and only in a full run.
    ...(quick
      ? []
      : [
          {
            name: 'hyphae, from the kill, default lease, no restart mark: the redispatch waits out the 5 min lease',
            child: 'hyphae-body-default' as const,
            perChild: 1,
            fromKill: true,
            rounds: 1,
            recover: redispatch,
          },
        ]),
  ];
  return [
    {
      name: 'hyphae: redispatch after the worker died in the body (lease expired → RECLAIM, run, complete)',
      child: 'hyphae-body',
      perChild: quick ? 20 : 100,
      async recover(id) {
        await tool(ARGS, { toolCallId: id });
      },
    },
    {
      name: 'hyphae: redispatch after the worker died inside sideEffect() (maybe_crossed → HARD_BLOCK)',
      child: 'hyphae-sideEffect',
      perChild: quick ? 20 : 100,
      async recover(id) {
        try {
          await tool(ARGS, { toolCallId: id });
        } catch (error) {
          if (error instanceof LedgerHardBlockError) return;
          throw error;
        }
        throw new Error(`redispatch of ${id} ran a call interrupted inside its effect`);
      },
    },
    {
      name: `DBOS: resumeWorkflow onto a queue polled every 1 ms, getResult polling every 1 ms`,
      child: 'dbos',
      perChild: quick ? 10 : 50,
      async prepare() {
        await DBOS.registerQueue(FAST_QUEUE, { minPollingIntervalMs: 1 });
        // DBOS's dispatcher takes up a new queue at its next reconcile, once a second.
        await sleep(1100);
      },
      async finish() {
        await DBOS.deleteQueue(FAST_QUEUE);
      },
      async recover(id) {
        const handle = await DBOS.resumeWorkflow(id, { queueName: FAST_QUEUE });
        await handle.getResult({ pollingIntervalMs: 1 });
      },
    },
    {
      name: 'DBOS: resumeWorkflow (defaults: its internal queue, getResult polling every 1 s)',
      child: 'dbos',
      perChild: quick ? 2 : 10,
      async recover(id) {
        const handle = await DBOS.resumeWorkflow(id);
        await handle.getResult();
      },
    },
    ...fromKill,
  ];
}

/**
 * Run `rounds` interleaved rounds: per round and case, crash one child with `perChild` calls in
 * their bodies, then time the recovery of each call. `where(kind)` is the child's table prefix or executor.
 */
export async function measureCrashes(
  cases: readonly CrashCase[],
  rounds: number,
  where: (kind: ChildKind, round: number) => string,
): Promise<Stats[]> {
  const histograms = cases.map(() => new Histogram());
  for (let round = 0; round < rounds; round++) {
    for (const [index, crash] of cases.entries()) {
      if (crash.rounds !== undefined && round >= crash.rounds) continue;
      const idPrefix = `crash-${index}-${round}-${process.pid}-${Date.now()}`;
      const killedAt = await crashChild(crash.child, where(crash.child, round), crash.perChild, idPrefix);
      // Past the lease the killed hyphae worker last renewed (it renews every third of it).
      if (crash.fromKill !== true) await sleep(CRASHED_LEASE_MS + 50);
      await crash.prepare?.();
      const histogram = histograms[index] as Histogram;
      const cpu = process.cpuUsage();
      await crash.restart?.(idPrefix);
      for (let n = 0; n < crash.perChild; n++) {
        const started = crash.fromKill === true ? killedAt : performance.now();
        await crash.recover(`${idPrefix}-${n}`);
        histogram.record((performance.now() - started) * 1000);
      }
      const spent = process.cpuUsage(cpu);
      histogram.addCpu(spent.user + spent.system);
      await crash.finish?.();
    }
  }
  return histograms.map((histogram) => histogram.stats());
}
