/**
 * The Vercel Workflow DevKit as an engine of the efficacy bench: the app of
 * test/adapters/workflow/fixture/, built once with the `workflow` CLI (standalone target) into a
 * temp folder and hosted by a plain `node:http` server in a child process on the local world (a
 * second host, started after a SIGKILL, re-enqueues the unfinished run). A charge is a line the step
 * appends to a file; the runs follow one another, so a run's charges are the lines it added.
 *
 * There is no timeout case: a Workflow step has no timeout that starts a second attempt (its
 * options are `maxRetries` and `RetryableError`'s `retryAfter`); a step runs until it returns,
 * throws or its process dies, which is the kill case.
 */
import { type BuiltApp, buildApp, chargesOf, type HostRun, runHost } from '../../../test/adapters/workflow/app.js';
import { outcomeOf } from './cases.js';
import type { Engine, EngineCaseId, EngineRun } from './types.js';

let app: BuiltApp | undefined;

function settingsOf(caseId: EngineCaseId, guarded: boolean) {
  switch (caseId) {
    case 'kill-after-charge':
      return { guarded, afterCharge: 'hang' } as const;
    case 'throw-after-charge':
      return { guarded, afterCharge: 'throw' } as const;
    case 'ai-sdk-tool-retried-turn':
      return { guarded, afterCharge: 'return', workflow: 'agent' } as const;
    default:
      throw new Error(`The Workflow DevKit engine has no case \`${caseId}\``);
  }
}

async function runCase(caseId: EngineCaseId, guarded: boolean): Promise<EngineRun> {
  const settings = settingsOf(caseId, guarded);
  app ??= buildApp();
  const built = app;
  const before = chargesOf(built);
  let ended: HostRun;
  if (caseId === 'kill-after-charge') {
    const crashed = await runHost(built, { action: 'start' }, settings, { killAfterCharge: true });
    ended = await runHost(
      built,
      { action: 'recover', runId: crashed.runId ?? '' },
      { ...settings, afterCharge: 'return' },
    );
  } else {
    ended = await runHost(built, { action: 'start' }, settings);
  }
  return { charges: chargesOf(built) - before, outcome: outcomeOf(ended.settled) };
}

/** The Workflow DevKit on its local world, the ledger on SQLite in the app's folder. */
export const workflowEngine: Engine = {
  id: 'workflow',
  pkg: 'workflow',
  label: 'Workflow DevKit',
  setup:
    '`"use step"` (`maxRetries` 3, the default), `workflow build` standalone, hosted by `node:http` in a child process on the local world; ledger on SQLite; guarded: `ledgeredStep`, `ledgeredStepTool`',
  minNode: 20,
  cases: ['kill-after-charge', 'throw-after-charge', 'ai-sdk-tool-retried-turn'],
  run: runCase,
  async close() {
    app?.remove();
    app = undefined;
  },
};
