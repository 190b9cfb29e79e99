/**
 * A Restate `ctx.run` retried after its charge, stock beside guarded, on a real `restate-server`
 * and a real service endpoint: a run that throws after the charge (Restate retries it), and a run
 * that outlives the service's inactivity and abort timeouts after the charge (Restate aborts the
 * attempt and retries while the first still runs). Charges are lines in a file; the ledger is SQLite.
 *
 * The Restate SDK needs Node.js 22 or later; on an older runtime this file only shows that.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hyphae } from '../../config/cli-runner.js';
import { yaml } from '../../config/helpers.js';
import { type CaseRun, type RestateCase, restateRuns, runCase, startRestateApp } from '../../fixtures/restate-app.js';

const SLOW = { timeout: 120_000 };

async function runOnce(
  caseId: RestateCase,
  guarded: boolean,
  inspect?: (dir: string, run: CaseRun) => void,
): Promise<CaseRun> {
  const app = await startRestateApp();
  try {
    const run = await runCase(app, caseId, { guarded });
    inspect?.(app.dir, run);
    return run;
  } finally {
    await app.close();
  }
}

/** The stuck transitions of the ledger in `dir`, as `hyphae transitions list --stuck --json` lists them. */
function stuckIn(dir: string): Record<string, unknown>[] {
  writeFileSync(
    join(dir, 'hyphae.yaml'),
    yaml(
      'transition: { agent_id: restate-app, policy_version: restate-app.1 }',
      `action_ledger: { storage: sqlite, path: ${JSON.stringify(join(dir, 'ledger.db'))} }`,
    ),
  );
  const listed = hyphae(dir, ['transitions', 'list', '--stuck', '--json']);
  expect(listed.stderr).toBe('');
  return JSON.parse(listed.stdout) as Record<string, unknown>[];
}

if (!restateRuns) {
  describe('hyphae/restate on a runtime without Promise.withResolvers', () => {
    it(`does not apply on Node.js ${process.versions.node}: the Restate SDK needs Node.js 22 or later`, () => {
      expect(Number(process.versions.node.split('.')[0])).toBeLessThan(22);
    });
  });
} else {
  describe('hyphae/restate: a ctx.run retried after its charge', () => {
    it(
      'throws after the charge: stock charges twice; guarded once, and the invocation fails with a TerminalError',
      SLOW,
      async () => {
        const stock = await runOnce('throw-after-charge', false);
        let stuck: Record<string, unknown>[] = [];
        const guarded = await runOnce('throw-after-charge', true, (dir) => {
          stuck = stuckIn(dir);
        });

        expect(stock).toMatchObject({ charges: 2, settled: { ok: true, value: { chargeId: 2 } } });
        expect(guarded).toMatchObject({ charges: 1, settled: { ok: false } });
        const message = guarded.settled.ok ? '' : guarded.settled.message;
        expect(message).toMatch(/^ledger_hard_block: Hard block on tool `charge`/);
        // The transition is the run's: its ticket `<invocationId>#<name>`, its scope the invocation.
        expect(stuck).toHaveLength(1);
        expect(stuck[0]).toMatchObject({
          tool: 'charge',
          scope: { runId: guarded.invocationId },
          ticket: `${guarded.invocationId}#charge`,
          stuck: true,
        });
      },
    );

    it(
      'outlives the inactivity and abort timeouts after the charge: stock charges twice; guarded the retry waits for the first attempt and returns its charge',
      SLOW,
      async () => {
        const stock = await runOnce('timeout-after-charge', false);
        const guarded = await runOnce('timeout-after-charge', true);

        expect(stock).toMatchObject({ charges: 2, settled: { ok: true, value: { chargeId: 2 } } });
        expect(guarded).toMatchObject({ charges: 1, settled: { ok: true, value: { chargeId: 1 } } });
      },
    );
  });
}
