/**
 * A DBOS step retried after its charge, stock beside guarded: a step that outlives its `timeoutMS`
 * (DBOS starts the retry while the first attempt still runs), a step that throws after the charge,
 * and an AI SDK tool inside a step whose model turn fails after the tool ran, retried with a new
 * tool call id from the model. Charges are rows in PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import type { AfterCharge, AppCommand } from '../../fixtures/dbos-app.js';
import { integrationSkip, probePostgres } from '../../helpers/integration.js';
import { type AppRun, chargesIn, createAppDatabase, runApp } from './app.js';

const skip = integrationSkip(await probePostgres());
const SLOW = { timeout: 120_000 };

async function runOnce(workflow: AppCommand['workflow'], afterCharge: AfterCharge, guarded: boolean) {
  const db = await createAppDatabase();
  try {
    const run: AppRun = await runApp({
      databaseUrl: db.url,
      executorID: 'worker-1',
      action: 'start',
      workflowID: `${workflow}-${afterCharge}-${guarded ? 'guarded' : 'stock'}`,
      guarded,
      workflow,
      afterCharge,
    });
    return { run, charges: await chargesIn(db.url) };
  } finally {
    await db.drop();
  }
}

describe.skipIf(skip)('hyphae/dbos: a step retried after its charge', () => {
  it(
    'outlives its timeoutMS: stock charges twice, guarded the retry waits for the first attempt and returns its charge',
    SLOW,
    async () => {
      const stock = await runOnce('charge', 'outlive-timeout', false);
      const guarded = await runOnce('charge', 'outlive-timeout', true);

      expect(stock).toMatchObject({ charges: 2, run: { settled: { ok: true, value: { chargeId: 2 } } } });
      expect(guarded).toMatchObject({ charges: 1, run: { charged: 1, settled: { ok: true, value: { chargeId: 1 } } } });
    },
  );

  it(
    'throws after the charge: stock charges twice, guarded fails with a hard block DBOS does not retry',
    SLOW,
    async () => {
      const stock = await runOnce('charge', 'throw', false);
      const guarded = await runOnce('charge', 'throw', true);

      expect(stock).toMatchObject({ charges: 2, run: { settled: { ok: true } } });
      expect(guarded).toMatchObject({
        charges: 1,
        run: { charged: 1, settled: { ok: false, error: { code: 'ledger_hard_block' } } },
      });
    },
  );

  it(
    'an AI SDK tool in a retried turn, called again under a new tool call id: stock charges twice, guarded once',
    SLOW,
    async () => {
      const stock = await runOnce('agent', 'return', false);
      const guarded = await runOnce('agent', 'return', true);

      expect(stock).toMatchObject({ charges: 2, run: { settled: { ok: true, value: 'Charged.' } } });
      expect(guarded).toMatchObject({ charges: 1, run: { charged: 1, settled: { ok: true, value: 'Charged.' } } });
    },
  );
});
