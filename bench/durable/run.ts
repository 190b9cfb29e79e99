/**
 * The cost of `hyphae/dbos`: a DBOS Transact workflow of one step whose body is one INSERT, stock
 * and through `ledgeredStep`, with the ledger on the same PostgreSQL database, in one run.
 *
 *   node bench/run-bundled.mjs bench/durable/run.ts            # full run (~2 min)
 *   node bench/run-bundled.mjs bench/durable/run.ts --quick    # short run (~20 s)
 *
 * Writes bench/results/durable.{json,md}; bench/aggregate.ts gathers them into bench/RESULTS.md.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import pg from 'pg';
import { ledgeredStep } from '../../src/adapters/dbos.js';
import { createLedger, sideEffect } from '../../src/index.js';
import { tableNames } from '../../src/storage/postgres/schema.js';
import { createPostgresStorage } from '../../src/storage/postgres.js';
import { commandLine, figure, headerLines, load, us, writeArea } from '../lib/area-report.js';
import type { Stats } from '../lib/histogram.js';
import { type Column, markdownTable } from '../lib/markdown-table.js';
import { measureCases, type Plan, roundsText, type TimedCase } from '../lib/measure.js';
import { randomKey } from '../lib/random-key.js';

const quick = process.argv.includes('--quick');
const plan: Plan = quick
  ? { warmupMs: 200, durationMs: 1000, rounds: 2 }
  : { warmupMs: 1000, durationMs: 8000, rounds: 16 };

const SERVER_URL = 'postgres://postgres@127.0.0.1:5432';
const DATABASE = 'hyphae_durable_bench';
const DATABASE_URL = `${SERVER_URL}/${DATABASE}`;
const TABLE_PREFIX = `bench_${randomKey().slice(0, 8)}_`;

const db = new pg.Pool({ connectionString: DATABASE_URL, max: 10 });
const storage = createPostgresStorage({ connectionString: DATABASE_URL }, { tablePrefix: TABLE_PREFIX });
const ledger = createLedger({ storage, agentId: 'bench-agent', policyVersion: 'bench.1' });
const SPEC = { name: 'charge', sideEffectClass: 'payment' } as const;

interface Order {
  readonly orderId: string;
  readonly cents: number;
}
const ORDER: Order = { orderId: 'ord_42', cents: 100 };

/** The step's body: one INSERT. */
async function insertCharge(order: Order, key: string | null): Promise<number> {
  const { rows } = await db.query<{ id: number }>(
    'INSERT INTO bench_charges (order_id, cents, idempotency_key) VALUES ($1, $2, $3) RETURNING id',
    [order.orderId, order.cents, key],
  );
  return rows[0]?.id ?? -1;
}

const stock = DBOS.registerWorkflow(
  async function stockCharge(order: Order): Promise<number> {
    return DBOS.runStep(() => insertCharge(order, null), { name: 'charge' });
  },
  { name: 'stockCharge' },
);

const guarded = DBOS.registerWorkflow(
  async function guardedCharge(order: Order): Promise<number> {
    return DBOS.runStep(
      () => ledgeredStep(ledger, SPEC, ({ operationId }) => insertCharge(order, operationId), { args: { ...order } }),
      { name: 'charge' },
    );
  },
  { name: 'guardedCharge' },
);

const lean = DBOS.registerWorkflow(
  async function leanCharge(order: Order): Promise<number> {
    return DBOS.runStep(
      () =>
        ledgeredStep(ledger, SPEC, ({ operationId }) => sideEffect(() => insertCharge(order, operationId)), {
          args: { ...order },
          boundary: 'marked',
          followForks: false,
        }),
      { name: 'charge' },
    );
  },
  { name: 'leanCharge' },
);

const CASES: readonly TimedCase[] = [
  { name: 'stock: `DBOS.runStep` of one INSERT', start: () => () => stock(ORDER) },
  {
    name: '`ledgeredStep` defaults (the claim carries the boundary, forks followed)',
    start: () => () => guarded(ORDER),
  },
  {
    name: "`ledgeredStep` with `boundary: 'marked'`, the INSERT in `sideEffect()`, `followForks: false`",
    start: () => () => lean(ORDER),
  },
];

/** Create the database when missing and start from empty tables. */
async function prepareDatabase(): Promise<void> {
  const server = new pg.Client({ connectionString: `${SERVER_URL}/postgres` });
  await server.connect();
  try {
    const found = await server.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (found.rowCount === 0) await server.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await server.end();
  }
  await db.query('DROP SCHEMA IF EXISTS dbos CASCADE');
  await db.query('DROP TABLE IF EXISTS bench_charges');
  await db.query(
    'CREATE TABLE bench_charges (id bigserial PRIMARY KEY, order_id text, cents int, idempotency_key text)',
  );
}

/** Statements sent to PostgreSQL for one call of `op` (DBOS, the ledger and the body all go through `pg.Client#query`). */
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

function get<T>(list: readonly T[], index: number): T {
  const item = list[index];
  if (item === undefined) throw new Error(`missing case ${index}`);
  return item;
}

async function main(): Promise<void> {
  const command = commandLine();
  const loadAtStart = load();
  console.log(`${command}: ${quick ? 'quick' : 'full'} run, ${plan.durationMs} ms per case`);
  await prepareDatabase();
  DBOS.setConfig({ name: 'hyphae_durable_bench', systemDatabaseUrl: DATABASE_URL, logLevel: 'error' });
  await DBOS.launch();
  await storage.ensureSchema();
  try {
    // The first call of each warms its pools and, for the ledger, its schema check.
    for (const timed of CASES) await (await timed.start())();
    const statements = [];
    for (const timed of CASES) statements.push(await countStatements(async () => (await timed.start())()));
    const stats = await measureCases(CASES, plan);
    for (const [i, timed] of CASES.entries()) {
      const s = get(stats, i);
      console.log(`  ${timed.name.padEnd(72)} p50 ${us(s.p50Us).padStart(8)}  p99 ${us(s.p99Us).padStart(8)} µs`);
    }
    await writeReport(command, loadAtStart, stats, statements);
  } finally {
    await DBOS.shutdown();
    await ledger.close();
    const names = tableNames('public', TABLE_PREFIX);
    await db.query(`DROP TABLE IF EXISTS ${names.transitions}, ${names.meta}`);
    await db.end();
  }
  console.log('wrote bench/results/durable.json and bench/results/durable.md');
}

async function writeReport(
  command: string,
  loadAtStart: number,
  stats: readonly Stats[],
  statements: readonly number[],
): Promise<void> {
  const base = get(stats, 0);
  const ratio = (s: Stats, at: 'p50Us' | 'p99Us'): number => s[at] / base[at];
  const times = (value: number): string => `${value.toFixed(2)}×`;
  const figures = [
    figure('durable dbos ledgeredStep p50 ratio (with ÷ without)', 'ratio', ratio(get(stats, 1), 'p50Us'), 1),
    figure('durable dbos ledgeredStep p99 ratio (with ÷ without)', 'ratio', ratio(get(stats, 1), 'p99Us'), 1),
    figure('durable dbos ledgeredStep lean p50 ratio (with ÷ without)', 'ratio', ratio(get(stats, 2), 'p50Us'), 1),
    figure('durable dbos ledgeredStep lean p99 ratio (with ÷ without)', 'ratio', ratio(get(stats, 2), 'p99Us'), 1),
    figure('durable dbos ledgeredStep extra statements', 'count', get(statements, 1) - get(statements, 0), null, 0),
    figure(
      'durable dbos ledgeredStep lean extra statements',
      'count',
      get(statements, 2) - get(statements, 0),
      null,
      0,
    ),
  ];
  const columns: Column[] = [
    { title: 'case' },
    { title: 'statements', align: 'right' },
    { title: 'p50 µs', align: 'right' },
    { title: 'p99 µs', align: 'right' },
    { title: 'with ÷ without (p50)', align: 'right' },
    { title: 'with ÷ without (p99)', align: 'right' },
  ];
  const rows = CASES.map((timed, i) => {
    const s = get(stats, i);
    return [
      timed.name,
      String(get(statements, i)),
      us(s.p50Us),
      us(s.p99Us),
      times(ratio(s, 'p50Us')),
      times(ratio(s, 'p99Us')),
    ];
  });
  const markdown = [
    '# DBOS step with and without the ledger (PostgreSQL)',
    '',
    ...headerLines(command, loadAtStart, new Date()),
    `- Plan: ${quick ? 'quick' : 'full'} mode; ${plan.warmupMs} ms warm-up, then ${roundsText(plan)}`,
    '',
    `One process, one PostgreSQL database (\`${DATABASE}\` on 127.0.0.1:5432, server defaults): DBOS Transact
5.3.0's system tables, the step's table and hyphae's ledger tables (\`createPostgresStorage\`, its own pool).
Each call is a fresh workflow of one \`DBOS.runStep\` whose body is one INSERT; the guarded cases run the body
through \`ledgeredStep\` (class \`payment\`, the operation id passed to the INSERT as its idempotency key).
Statements per call are counted at \`pg.Client#query\` (DBOS, the ledger and the body alike). The defaults add
the claim (written \`maybe_crossed\`: it carries the boundary), the completion and one workflow status read
(the fork lookup); the marked case the claim, the \`sideEffect()\` mark before the INSERT and the completion.`,
    '',
    ...markdownTable(columns, rows),
    '',
  ].join('\n');
  await writeArea('durable', figures, markdown);
}

await main();
