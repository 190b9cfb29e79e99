/**
 * DBOS Transact as an engine of the efficacy bench: the app of test/fixtures/dbos-app.ts, each run a
 * child process (SIGKILLed in the kill case, then a second one whose launch recovers the workflow),
 * on one PostgreSQL database for every run of the engine. A charge is a row the step inserts; each
 * run has its own workflow id and executor id, so a launch recovers only its own workflow and the
 * rows of a run are counted by its workflow id.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { type AppDatabase, type AppRun, createAppDatabase, runApp } from '../../../test/adapters/dbos/app.js';
import type { AppCommand } from '../../../test/fixtures/dbos-app.js';
import { outcomeOf } from './cases.js';
import type { Engine, EngineCaseId, EngineRun } from './types.js';

let database: Promise<AppDatabase> | undefined;

async function chargesOf(databaseUrl: string, workflowID: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM charges WHERE workflow_id = $1', [
      workflowID,
    ]);
    return Number(rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}

/** The start command of one run, and what the run does after the charge. */
function commandOf(databaseUrl: string, caseId: EngineCaseId, guarded: boolean): AppCommand {
  const workflowID = `${caseId}-${guarded ? 'guarded' : 'stock'}-${randomBytes(4).toString('hex')}`;
  const base = { databaseUrl, executorID: `bench-${workflowID}`, action: 'start', workflowID, guarded } as const;
  switch (caseId) {
    case 'kill-after-charge':
      return { ...base, workflow: 'charge', afterCharge: 'hang' };
    case 'throw-after-charge':
      return { ...base, workflow: 'charge', afterCharge: 'throw' };
    case 'timeout-after-charge':
      return { ...base, workflow: 'charge', afterCharge: 'outlive-timeout' };
    case 'ai-sdk-tool-retried-turn':
      return { ...base, workflow: 'agent', afterCharge: 'return' };
  }
}

async function runCase(caseId: EngineCaseId, guarded: boolean): Promise<EngineRun> {
  database ??= createAppDatabase();
  const { url } = await database;
  const start = commandOf(url, caseId, guarded);
  let ended: AppRun;
  if (caseId === 'kill-after-charge') {
    await runApp(start, { killAfterCharge: true });
    ended = await runApp({ ...start, action: 'recover', afterCharge: 'return' });
  } else {
    ended = await runApp(start);
  }
  return { charges: await chargesOf(url, start.workflowID), outcome: outcomeOf(ended.settled) };
}

/** DBOS Transact, its system database and the ledger on one PostgreSQL database. */
export const dbosEngine: Engine = {
  id: 'dbos',
  pkg: '@dbos-inc/dbos-sdk',
  label: 'DBOS Transact',
  setup:
    '`DBOS.runStep` (5 attempts) in a child process; system database, charges and ledger on one PostgreSQL database; guarded: `ledgeredStep`, `ledgeredStepTool`',
  minNode: 20,
  needs: ['postgres'],
  cases: ['kill-after-charge', 'throw-after-charge', 'timeout-after-charge', 'ai-sdk-tool-retried-turn'],
  run: runCase,
  async close() {
    const open = database;
    database = undefined;
    if (open !== undefined) await (await open).drop();
  },
};
