/**
 * A Restate service SIGKILLed after its `ctx.run` charged and before the run returned, then started
 * again (Restate retries the invocation against it): stock charges twice; with `hyphae/restate` the
 * replayed run meets the dead attempt's claim, the invocation fails with a `TerminalError` Restate
 * does not retry, the transition is listed as stuck, and after an operator's release the
 * invocation restarted as new (admin API `restart-as-new`) ends with the released result — one
 * charge in all. Real `restate-server`, a real endpoint in a child process, the ledger on SQLite.
 *
 * The Restate SDK needs Node.js 22 or later; on an older runtime this file only shows that.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hyphae } from '../../config/cli-runner.js';
import { yaml } from '../../config/helpers.js';
import { restateRuns, runCase, startRestateApp } from '../../fixtures/restate-app.js';

const SLOW = { timeout: 120_000 };

if (!restateRuns) {
  describe('hyphae/restate on a runtime without Promise.withResolvers', () => {
    it(`does not apply on Node.js ${process.versions.node}: the Restate SDK needs Node.js 22 or later`, () => {
      expect(Number(process.versions.node.split('.')[0])).toBeLessThan(22);
    });
  });
} else {
  describe('hyphae/restate: a service killed after its run charged', () => {
    it('stock: the retried invocation runs ctx.run again and charges twice', SLOW, async () => {
      const app = await startRestateApp();
      try {
        const run = await runCase(app, 'kill-after-charge', { guarded: false });

        expect(run).toMatchObject({ charges: 2, settled: { ok: true, value: { chargeId: 2 } } });
      } finally {
        await app.close();
      }
    });

    it(
      'guarded: one charge, a TerminalError, listed as stuck, released, then the invocation restarted as new ends with the result',
      SLOW,
      async () => {
        const app = await startRestateApp();
        try {
          writeFileSync(
            join(app.dir, 'hyphae.yaml'),
            yaml(
              'transition: { agent_id: restate-app, policy_version: restate-app.1 }',
              `action_ledger: { storage: sqlite, path: ${JSON.stringify(app.ledgerPath)} }`,
            ),
          );
          const settings = { guarded: true, keyed: true } as const;

          const crashed = await runCase(app, 'kill-after-charge', settings);

          expect(crashed).toMatchObject({ charges: 1, settled: { ok: false } });
          const message = crashed.settled.ok ? '' : crashed.settled.message;
          expect(message).toMatch(/^ledger_hard_block: Hard block on tool `charge`/);
          expect(message).toContain('boundary `maybe_crossed`');

          const stuck = hyphae(app.dir, ['transitions', 'list', '--stuck', '--json']);
          expect(stuck.stderr).toBe('');
          const listed = JSON.parse(stuck.stdout) as { key: string }[];
          expect(listed).toHaveLength(1);
          expect(listed[0]).toMatchObject({
            tool: 'charge',
            scope: { runId: 'charge:ord_1' },
            shownOutcome: 'EXPIRED',
            boundary: 'maybe_crossed',
            ticket: 'charge:ord_1',
            stuck: true,
          });
          const key = listed[0]?.key ?? '';

          // The restarted service told the ledger its earlier process is gone (at the default lease,
          // the retried run did not wait for it to run out): the operator only finds the charge at the
          // provider and records it as the run's result.
          const shown = JSON.parse(hyphae(app.dir, ['transitions', 'show', key, '--json']).stdout) as {
            workerDeath?: { by?: string };
          };
          expect(shown.workerDeath).toMatchObject({ by: 'startup' });
          const released = hyphae(app.dir, [
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
          ]);
          expect(released.stderr).toBe('');
          expect(released.code).toBe(0);

          const service = await app.startService({ ...settings, afterCharge: 'return' });
          const rerunId = await app.restartAsNew(crashed.invocationId);
          const rerun = await app.attach(rerunId);
          await service.kill();

          expect(rerunId).not.toBe(crashed.invocationId);
          expect(rerun).toEqual({ ok: true, value: { chargeId: 1 } });
          expect(service.charged).toBe(0);
          expect(app.charges()).toBe(1);
          expect(JSON.parse(hyphae(app.dir, ['transitions', 'list', '--stuck', '--json']).stdout)).toEqual([]);
        } finally {
          await app.close();
        }
      },
    );
  });
}
