/**
 * The pieces of the Workflow cost bench (bench/durable/workflow.ts): its app, built by the
 * `workflow` CLI and served in this process on the local world, runs each workflow to its result,
 * makes the step's one INSERT, and reports the ledger's storage calls and the steps' times the bench
 * turns into its table.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltApp, buildApp, type HostedApp, hostApp } from '../../bench/durable/workflow-app.js';

const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;

let app: BuiltApp;
let host: HostedApp;

beforeAll(async () => {
  app = buildApp();
  host = await hostApp(app);
}, 150_000);

afterAll(async () => {
  await host?.close();
  app?.remove();
});

function charges(): { order_id: string; cents: number; idempotency_key: string | null }[] {
  const db = new Database(app.chargesDb, { readonly: true });
  try {
    return db.prepare('SELECT order_id, cents, idempotency_key FROM charges ORDER BY id').all() as never;
  } finally {
    db.close();
  }
}

describe('the durable Workflow bench app', () => {
  it('runs the stock step: one INSERT, no ledger', async () => {
    const id = await host.run('stockCharge', ['ord_1', 100]);

    expect(id).toBe(1);
    expect(charges()).toEqual([{ order_id: 'ord_1', cents: 100, idempotency_key: null }]);
    expect(host.storageCalls(app.ledgerDb)).toBeNull();
    expect(host.stepTimes().stock).toHaveLength(1);
  });

  it('runs the ledgered step with two store round trips: the claim (which carries the boundary) and the completion', async () => {
    const id = await host.run('guardedCharge', ['ord_2', 200]);

    expect(id).toBe(2);
    expect(charges()[1]).toMatchObject({ order_id: 'ord_2', cents: 200, idempotency_key: expect.any(String) });
    expect(host.storageCalls(app.ledgerDb)).toMatchObject({ create: 1, update: 1, get: 0, findByTicket: 0 });
  });

  it("runs the `boundary: 'marked'` step with three: claim, the sideEffect() mark and completion", async () => {
    const id = await host.run('leanCharge', ['ord_3', 300]);

    expect(id).toBe(3);
    // The same ledger file as the defaults' step: its counts add up.
    expect(host.storageCalls(app.ledgerDb)).toMatchObject({ create: 2, update: 3, get: 0, findByTicket: 0 });
  });

  it('keeps the tuned case on a ledger file of its own, in WAL mode', async () => {
    await host.run('walCharge', ['ord_4', 400]);

    expect(host.storageCalls(app.ledgerWalDb)).toMatchObject({ create: 1, update: 1 });
    const db = new Database(app.ledgerWalDb, { readonly: true });
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      db.close();
    }
    expect(Object.keys(host.stepTimes()).sort()).toEqual(['guarded', 'lean', 'stock', 'wal']);
  });
});
