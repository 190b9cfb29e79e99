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
  hyphaeStorage,
  hyphaeTool,
  launchDbos,
  oneStepWorkflow,
} from './systems.js';

/** What a child runs until it is killed. */
export type ChildKind = `hyphae-${HyphaeHang}` | 'dbos';

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
  const tool = hyphaeTool(hyphaeStorage(where), { where: kind === 'hyphae-body' ? 'body' : 'sideEffect', entered });
  for (let n = 0; n < count; n++) void tool(ARGS, { toolCallId: `${idPrefix}-${n}` }).catch(() => undefined);
}

/** Fork this script as a child of `kind`, wait until all its calls are in their bodies, SIGKILL it. */
async function crashChild(kind: ChildKind, where: string, count: number, idPrefix: string): Promise<void> {
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
  child.kill('SIGKILL');
  await exited;
}

/** The recovery cases. `storage` is the parent's hyphae store on the same tables the hyphae children use. */
export function crashCases(storage: PostgresStorage, quick: boolean): CrashCase[] {
  const tool = hyphaeTool(storage);
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
      const idPrefix = `crash-${index}-${round}-${process.pid}-${Date.now()}`;
      await crashChild(crash.child, where(crash.child, round), crash.perChild, idPrefix);
      // Past the lease the killed hyphae worker last renewed (it renews every third of it).
      await sleep(CRASHED_LEASE_MS + 50);
      await crash.prepare?.();
      const histogram = histograms[index] as Histogram;
      const cpu = process.cpuUsage();
      for (let n = 0; n < crash.perChild; n++) {
        const started = performance.now();
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
