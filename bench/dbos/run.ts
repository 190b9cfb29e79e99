/**
 * hyphae's ledger on PostgreSQL against DBOS Transact (`@dbos-inc/dbos-sdk`) on the same server and
 * database: a first call (a ledgered no-op against a workflow of one step), the replay of a completed
 * call, and the replay after the worker was SIGKILLed inside the body.
 *
 *   node bench/run-bundled.mjs bench/dbos/run.ts            # full run (~3 min)
 *   node bench/run-bundled.mjs bench/dbos/run.ts --quick    # short run (~40 s)
 *
 * Writes bench/results/dbos.{json,md}; bench/aggregate.ts gathers them into bench/RESULTS.md.
 */
import { randomUUID } from 'node:crypto';
import { DBOS } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { tableNames } from '../../src/storage/postgres/schema.js';
import { ledgerCases } from '../ledger/cases.js';
import { commandLine, load } from '../lib/area-report.js';
import type { Stats } from '../lib/histogram.js';
import { measureCases, type Plan, type TimedCase } from '../lib/measure.js';
import { randomKey } from '../lib/random-key.js';
import { type ChildKind, crashCases, measureCrashes, runChild } from './crash.js';
import { type DbosReport, writeDbosReport } from './report.js';
import {
  ARGS,
  DATABASE,
  DATABASE_URL,
  hyphaeStorage,
  launchDbos,
  oneStepWorkflow,
  SERVER_URL,
  stepRuns,
} from './systems.js';

const quick = process.argv.includes('--quick');
const plan: Plan = quick
  ? { warmupMs: 100, durationMs: 500, rounds: 2 }
  : { warmupMs: 500, durationMs: 4000, rounds: 16 };
const CRASH_ROUNDS = quick ? 1 : 3;

/** Create the bench database when missing and drop DBOS's schema, so both systems start on empty tables. */
async function prepareDatabase(): Promise<void> {
  const server = new pg.Client({ connectionString: `${SERVER_URL}/postgres` });
  await server.connect();
  try {
    const found = await server.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (found.rowCount === 0) await server.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await server.end();
  }
  const db = new pg.Client({ connectionString: DATABASE_URL });
  await db.connect();
  try {
    await db.query('DROP SCHEMA IF EXISTS dbos CASCADE');
  } finally {
    await db.end();
  }
}

/** The DBOS cases: a fresh workflow each call, and a completed workflow started again with its id. */
function dbosCases(): { call: TimedCase; replay: TimedCase } {
  const runCompleted = async (workflowID: string) =>
    (await DBOS.startWorkflow(oneStepWorkflow, { workflowID })(ARGS)).getResult();
  return {
    call: { name: 'DBOS: workflow of one step (fresh workflow id)', start: () => () => oneStepWorkflow(ARGS) },
    replay: {
      name: 'DBOS: the same workflow id again (completed → recorded output)',
      async start() {
        const workflowID = randomUUID();
        await runCompleted(workflowID);
        return () => runCompleted(workflowID);
      },
    },
  };
}

/** Statements each system sends to PostgreSQL for one call of `op` (both go through `pg.Client#query`). */
async function countStatements(op: () => Promise<unknown>): Promise<number> {
  const original = pg.Client.prototype.query;
  let count = 0;
  pg.Client.prototype.query = function counted(this: pg.Client, ...args: unknown[]) {
    count++;
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  try {
    await op();
  } finally {
    pg.Client.prototype.query = original;
  }
  return count;
}

function printStats(name: string, stats: Stats): void {
  const f = (value: number): string => value.toFixed(1).padStart(10);
  console.log(
    `  ${name.padEnd(96)} ops ${String(stats.ops).padStart(7)}  p50 ${f(stats.p50Us)}  p99 ${f(stats.p99Us)} µs`,
  );
}

async function main(): Promise<void> {
  const command = commandLine();
  const loadAtStart = load();
  console.log(`${command}: ${quick ? 'quick' : 'full'} run, ${plan.durationMs} ms per case`);
  await prepareDatabase();
  await launchDbos();
  const tablePrefix = `bench_${randomKey().slice(0, 8)}_`;
  const storage = hyphaeStorage(tablePrefix);
  await storage.ensureSchema();
  try {
    const hyphae = ledgerCases('hyphae postgres', () => storage);
    const dbos = dbosCases();
    const statements = {
      hyphaeCall: await countStatements(async () => (await hyphae.call.start())()),
      hyphaeSideEffect: await countStatements(async () => (await hyphae.sideEffect.start())()),
      dbosCall: await countStatements(() => oneStepWorkflow(ARGS)),
    };
    const cases = [hyphae.call, hyphae.sideEffect, dbos.call, hyphae.replay, dbos.replay];
    const stats = await measureCases(cases, plan);
    for (const [i, timed] of cases.entries()) printStats(timed.name, stats[i] as Stats);
    const stepsBeforeReplay = stepRuns.count;
    await (await dbos.replay.start())();
    // start() ran the step once; the replay itself must not have.
    if (stepRuns.count !== stepsBeforeReplay + 1) throw new Error('a completed DBOS workflow ran its step again');

    const crashes = crashCases(storage, quick);
    const executors = (kind: ChildKind, round: number) =>
      kind === 'dbos' ? `bench-crashed-${process.pid}-${round}-${randomKey().slice(0, 6)}` : tablePrefix;
    const crashStats = await measureCrashes(crashes, CRASH_ROUNDS, executors);
    for (const [i, crash] of crashes.entries()) printStats(crash.name, crashStats[i] as Stats);

    const report: DbosReport = {
      command,
      mode: quick ? 'quick' : 'full',
      plan,
      crashRounds: CRASH_ROUNDS,
      loadAtStart,
      statements,
      first: cases.map((timed, i) => ({ name: timed.name, stats: stats[i] as Stats })),
      crashes: crashes.map((crash, i) => ({
        name: crash.name,
        perChild: crash.perChild,
        stats: crashStats[i] as Stats,
      })),
    };
    await writeDbosReport(report);
  } finally {
    await storage.close();
    const db = new pg.Client({ connectionString: DATABASE_URL });
    await db.connect();
    const names = tableNames('public', tablePrefix);
    await db.query(`DROP TABLE IF EXISTS ${names.transitions}, ${names.meta}`).finally(() => db.end());
    await DBOS.shutdown();
  }
  console.log('wrote bench/results/dbos.json and bench/results/dbos.md');
}

if (process.argv[2] === '--child') {
  const [kind, where, count, idPrefix] = process.argv.slice(3);
  await runChild(kind as ChildKind, where ?? '', Number(count), idPrefix ?? '');
} else {
  await main();
}
