/**
 * Demo steps 1 and 2: a slow subagent call redispatched while the first still runs.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { DemoContext, StepReport } from './demo-context.js';

const SUBAGENT_MS = 300;
const REDISPATCH_AFTER_MS = 100;

function subagent(counter: { runs: number }) {
  return async (args: { task: string }): Promise<{ summary: string; run: number }> => {
    counter.runs++;
    const run = counter.runs;
    await sleep(SUBAGENT_MS);
    return { summary: `researched ${args.task}`, run };
  };
}

/**
 * A framework that redispatches a call it thinks has stalled. Both dispatches are awaited together
 * from the start, so a first dispatch that fails before the redispatch is a rejection of this
 * promise, never an unhandled one.
 */
export function dispatchTwice<R>(call: () => Promise<R>, afterMs: number = REDISPATCH_AFTER_MS): Promise<[R, R]> {
  const first = call();
  const second = sleep(afterMs).then(call);
  return Promise.all([first, second]);
}

/** Step 1: without the ledger, both dispatches run the subagent. */
export async function unguardedRedispatch(): Promise<StepReport> {
  const counter = { runs: 0 };
  const research = subagent(counter);
  const [a, b] = await dispatchTwice(() => research({ task: 'vendor pricing' }));
  return {
    pass: counter.runs === 2,
    lines: [
      `the framework redispatched call_sub_1 after ${REDISPATCH_AFTER_MS} ms while the first run was still working`,
      `executions: ${counter.runs} (expected 2 — the duplicate this demo exists to prevent)`,
      `results differ: run ${a.run} vs run ${b.run}`,
    ],
  };
}

/** Step 2: through the ledger, the redispatch polls and gets the first run's result. */
export async function guardedRedispatch(ctx: DemoContext): Promise<StepReport> {
  const counter = { runs: 0 };
  const research = ctx.ledger.tool({ name: 'research_subagent', sideEffectClass: 'subagent' }, subagent(counter));
  const [a, b] = await dispatchTwice(() =>
    research({ task: 'vendor pricing' }, { toolCallId: 'call_sub_1', scope: ctx.scope }),
  );
  const same = JSON.stringify(a) === JSON.stringify(b);
  return {
    pass: counter.runs === 1 && same,
    lines: [
      'the second dispatch met the IN_FLIGHT record, polled, and returned the stored result',
      `executions: ${counter.runs} (expected 1)`,
      `both callers got ${JSON.stringify(a)}${same ? '' : ` and ${JSON.stringify(b)}`}`,
    ],
  };
}
