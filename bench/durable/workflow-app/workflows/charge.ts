/**
 * The Workflow DevKit app of bench/durable/workflow.ts: workflows of one `"use step"` whose body is
 * one INSERT into a SQLite table (better-sqlite3, `CHARGES_DB`), stock and through `hyphae/workflow`
 * with the ledger on SQLite in a file of its own (`LEDGER_DB`), opened as docs/adapters/workflow.md
 * does. One more ledger (`LEDGER_WAL_DB`) is the tuned case: its file in WAL mode. Built with
 * `workflow build` into a temp folder by bench/durable/workflow-app.ts, which rewrites the relative
 * imports below to absolute paths. The steps run in the bench's process: they leave the ledger's
 * storage calls and their own times on `globalThis` for it.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { ledgeredStep } from '../../../../src/adapters/workflow.js';
import { createLedger, type Ledger, sideEffect } from '../../../../src/index.js';
import { createSqliteStorage } from '../../../../src/storage/sqlite.js';
import { countingStorage, type StorageCalls } from '../../../lib/counting-storage.js';

const CALLS = Symbol.for('hyphae.bench.workflow.storageCalls');
const STEP_TIMES = Symbol.for('hyphae.bench.workflow.stepTimes');
const shared = globalThis as { [CALLS]?: Record<string, StorageCalls>; [STEP_TIMES]?: Record<string, number[]> };

/** A native addon does not survive `workflow build`'s bundling: load better-sqlite3 at run time. */
function openDatabase(path: string): BetterSqlite3.Database {
  const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  return new Database(path);
}

let charges: BetterSqlite3.Statement<[string, number, string | null]> | undefined;
/** The step's body: one INSERT. */
function insertCharge(orderId: string, cents: number, key: string | null): number {
  charges ??= openDatabase(process.env.CHARGES_DB ?? '').prepare(
    'INSERT INTO charges (order_id, cents, idempotency_key) VALUES (?, ?, ?)',
  );
  return Number(charges.run(orderId, cents, key).lastInsertRowid);
}

const ledgers = new Map<string, Ledger>();
/** The ledger on `path` (`journal: 'wal'` switches its file to WAL), its storage calls counted under `path`. */
function ledgerOf(path: string, journal: 'default' | 'wal' = 'default'): Ledger {
  let ledger = ledgers.get(path);
  if (ledger === undefined) {
    const database = openDatabase(path);
    if (journal === 'wal') database.pragma('journal_mode = WAL');
    const counted = countingStorage(createSqliteStorage({ database }));
    shared[CALLS] = { ...shared[CALLS], [path]: counted.calls };
    ledger = createLedger({ storage: counted.storage, agentId: 'bench-agent', policyVersion: 'bench.1' });
    ledgers.set(path, ledger);
  }
  return ledger;
}

/** Time a step's function (the engine's own work for the step is outside it). */
async function timed<T>(step: string, run: () => T | Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await run();
  } finally {
    const times = shared[STEP_TIMES] ?? {};
    shared[STEP_TIMES] = times;
    const list = times[step] ?? [];
    times[step] = list;
    list.push((performance.now() - started) * 1000);
  }
}

const SPEC = { name: 'charge', sideEffectClass: 'payment' } as const;

async function stockStep(orderId: string, cents: number): Promise<number> {
  'use step';
  return timed('stock', () => insertCharge(orderId, cents, null));
}

async function guardedStep(orderId: string, cents: number): Promise<number> {
  'use step';
  return timed('guarded', () =>
    ledgeredStep(
      ledgerOf(process.env.LEDGER_DB ?? ''),
      SPEC,
      ({ operationId }) => insertCharge(orderId, cents, operationId),
      {
        args: { orderId, cents },
      },
    ),
  );
}

async function leanStep(orderId: string, cents: number): Promise<number> {
  'use step';
  return timed('lean', () =>
    ledgeredStep(
      ledgerOf(process.env.LEDGER_DB ?? ''),
      SPEC,
      ({ operationId }) => sideEffect(() => insertCharge(orderId, cents, operationId)),
      {
        args: { orderId, cents },
        boundary: 'marked',
      },
    ),
  );
}

async function walStep(orderId: string, cents: number): Promise<number> {
  'use step';
  return timed('wal', () =>
    ledgeredStep(
      ledgerOf(process.env.LEDGER_WAL_DB ?? '', 'wal'),
      SPEC,
      ({ operationId }) => insertCharge(orderId, cents, operationId),
      { args: { orderId, cents } },
    ),
  );
}

export async function stockCharge(orderId: string, cents: number): Promise<number> {
  'use workflow';
  return stockStep(orderId, cents);
}

export async function guardedCharge(orderId: string, cents: number): Promise<number> {
  'use workflow';
  return guardedStep(orderId, cents);
}

export async function leanCharge(orderId: string, cents: number): Promise<number> {
  'use workflow';
  return leanStep(orderId, cents);
}

export async function walCharge(orderId: string, cents: number): Promise<number> {
  'use workflow';
  return walStep(orderId, cents);
}
