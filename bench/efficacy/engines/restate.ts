/**
 * Restate in the efficacy bench: a real `restate-server` (1.7.12, from `@restatedev/restate-server`)
 * and a service endpoint in a child process (test/fixtures/restate-service.ts), one server per run;
 * the charge is a line in a file, the ledger SQLite. The same app as test/adapters/restate/.
 */
import { runCase, startRestateApp } from '../../../test/fixtures/restate-app.js';
import type { Engine, EngineCaseId, EngineRun } from './types.js';

const CASES = ['kill-after-charge', 'throw-after-charge', 'timeout-after-charge'] as const;
type RestateCaseId = (typeof CASES)[number];

function isRestateCase(caseId: EngineCaseId): caseId is RestateCaseId {
  return (CASES as readonly string[]).includes(caseId);
}

/** `completed`, or `failed: <code>` from the invocation's error message (`ledger_hard_block: …`). */
function outcomeOf(settled: { ok: true } | { ok: false; message: string }): string {
  if (settled.ok) return 'completed';
  return `failed: ${/^([a-z_]+):/.exec(settled.message)?.[1] ?? settled.message}`;
}

/** Restate: `ctx.run` stock beside `hyphae/restate`'s `ledgeredRun`. */
export const restateEngine: Engine = {
  id: 'restate',
  pkg: '@restatedev/restate-sdk',
  label: 'Restate',
  setup: 'restate-server 1.7.12, a Node service endpoint in a child process; charges in a file, the ledger on SQLite',
  minNode: 22,
  cases: CASES,
  async run(caseId: EngineCaseId, guarded: boolean): Promise<EngineRun> {
    if (!isRestateCase(caseId)) throw new Error(`Restate does not run the case \`${caseId}\``);
    const app = await startRestateApp();
    try {
      const run = await runCase(app, caseId, { guarded });
      return { charges: run.charges, outcome: outcomeOf(run.settled) };
    } finally {
      await app.close();
    }
  },
};
