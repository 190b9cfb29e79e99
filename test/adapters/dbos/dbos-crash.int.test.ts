/**
 * A DBOS worker SIGKILLed after its step charged and before the step returned, then the workflow
 * recovered by DBOS at the next launch of its executor: stock charges twice; with `hyphae/dbos`
 * (at the default lease) the restarted executor marks its earlier process dead, the recovered step
 * meets the dead attempt's claim at once, the workflow fails with a hard block DBOS does not retry, the transition is listed as stuck, and after an operator's release a fork of the
 * workflow ends with the released result — one charge in all.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { hyphae } from '../../config/cli-runner.js';
import { useTempDir, yaml } from '../../config/helpers.js';
import type { AppCommand } from '../../fixtures/dbos-app.js';
import { integrationSkip, probePostgres } from '../../helpers/integration.js';
import { chargesIn, createAppDatabase, runApp } from './app.js';

const skip = integrationSkip(await probePostgres());
/** Four or five child processes each launching DBOS on a starved machine. */
const SLOW = { timeout: 180_000 };

async function workflowStatus(databaseUrl: string, workflowID: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ status: string }>(
      'SELECT status FROM dbos.workflow_status WHERE workflow_uuid = $1',
      [workflowID],
    );
    return rows[0]?.status;
  } finally {
    await client.end();
  }
}

function commandOf(databaseUrl: string, guarded: boolean): AppCommand {
  return {
    databaseUrl,
    executorID: 'worker-1',
    action: 'start',
    workflowID: guarded ? 'order-guarded' : 'order-stock',
    guarded,
    workflow: 'charge',
    afterCharge: 'hang',
  };
}

describe.skipIf(skip)('hyphae/dbos: a worker killed after its step charged', () => {
  const tempDir = useTempDir();

  it('stock: the recovered workflow runs the step again and charges twice', SLOW, async () => {
    const db = await createAppDatabase();
    try {
      const start = commandOf(db.url, false);

      const crashed = await runApp(start, { killAfterCharge: true });
      const recovered = await runApp({ ...start, action: 'recover', afterCharge: 'return' });

      expect(crashed).toMatchObject({ charged: 1, killed: true, settled: null });
      expect(recovered).toMatchObject({ charged: 1, settled: { ok: true } });
      expect(await chargesIn(db.url)).toBe(2);
    } finally {
      await db.drop();
    }
  });

  it(
    'guarded: one charge, a non-retried hard block, listed as stuck, released, then a fork ends with the result',
    SLOW,
    async () => {
      const db = await createAppDatabase();
      try {
        const start = commandOf(db.url, true);
        const dir = tempDir();
        writeFileSync(
          join(dir, 'hyphae.yaml'),
          yaml(
            'transition: { agent_id: dbos-app, policy_version: dbos-app.1 }',
            'action_ledger: { storage: postgres, dsn_env: APP_DATABASE_URL, table_prefix: hyphae_ }',
          ),
        );
        const env = { APP_DATABASE_URL: db.url };

        const crashed = await runApp(start, { killAfterCharge: true });
        const recovered = await runApp({ ...start, action: 'recover', afterCharge: 'return' });

        expect(crashed).toMatchObject({ charged: 1, killed: true });
        expect(recovered).toMatchObject({ charged: 0, settled: { ok: false, error: { code: 'ledger_hard_block' } } });
        expect(await workflowStatus(db.url, start.workflowID)).toBe('ERROR');
        expect(await chargesIn(db.url)).toBe(1);

        const stuck = hyphae(dir, ['transitions', 'list', '--stuck', '--json'], env);
        expect(stuck.stderr).toBe('');
        const listed = JSON.parse(stuck.stdout) as { key: string }[];
        expect(listed).toHaveLength(1);
        expect(listed[0]).toMatchObject({
          tool: 'charge',
          scope: { runId: 'order-guarded' },
          shownOutcome: 'EXPIRED',
          boundary: 'maybe_crossed',
          ticket: 'order-guarded#0',
          stuck: true,
        });
        const key = listed[0]?.key ?? '';

        // The restarted executor told the ledger its earlier process is gone (at the default lease,
        // the recovered step did not wait for it to run out): the operator only finds the charge at
        // the provider and records it as the step's result.
        const shown = JSON.parse(hyphae(dir, ['transitions', 'show', key, '--json'], env).stdout) as {
          workerDeath?: { by?: string; reason?: string };
        };
        expect(shown.workerDeath).toMatchObject({ by: 'dbos', reason: expect.stringContaining('worker-1') });
        const released = hyphae(
          dir,
          [
            'transitions',
            'release',
            key,
            '--completed',
            '--result',
            '{"chargeId":1}',
            '--by',
            'ops',
            '--reason',
            'charge 1 found',
          ],
          env,
        );
        expect(released.stderr).toBe('');
        expect(released.code).toBe(0);

        const rerun = await runApp({ ...start, action: 'fork', forkID: 'order-guarded-rerun', afterCharge: 'return' });

        expect(rerun).toMatchObject({ charged: 0, settled: { ok: true, value: { chargeId: 1 } } });
        expect(await workflowStatus(db.url, 'order-guarded-rerun')).toBe('SUCCESS');
        expect(await chargesIn(db.url)).toBe(1);
        expect(JSON.parse(hyphae(dir, ['transitions', 'list', '--stuck', '--json'], env).stdout)).toEqual([]);
      } finally {
        await db.drop();
      }
    },
  );
  it(
    'guarded with a reconciler: the recovered step finds the charge by its idempotency key and the workflow ends with it',
    SLOW,
    async () => {
      const db = await createAppDatabase();
      try {
        const start = { ...commandOf(db.url, true), workflowID: 'order-reconciled', reconcile: true };

        const crashed = await runApp(start, { killAfterCharge: true });
        const recovered = await runApp({ ...start, action: 'recover', afterCharge: 'return' });

        expect(crashed).toMatchObject({ charged: 1, killed: true });
        expect(recovered).toMatchObject({ charged: 0, settled: { ok: true, value: { chargeId: 1 } } });
        expect(await workflowStatus(db.url, start.workflowID)).toBe('SUCCESS');
        expect(await chargesIn(db.url)).toBe(1);
      } finally {
        await db.drop();
      }
    },
  );
});
