/**
 * A Workflow DevKit step that throws after its charge and is retried by the engine, stock beside
 * guarded, the app built with the `workflow` CLI and hosted by a plain `node:http` server on the
 * local world. Charges are lines in a file.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hyphae } from '../../config/cli-runner.js';
import { yaml } from '../../config/helpers.js';
import { type BuiltApp, buildApp, chargesOf, runHost } from './app.js';

const SLOW = { timeout: 180_000 };

describe('hyphae/workflow: a step that throws after its charge', () => {
  let stock: BuiltApp;
  let guarded: BuiltApp;
  beforeAll(() => {
    stock = buildApp();
    guarded = buildApp();
  }, 240_000);
  afterAll(() => {
    stock?.remove();
    guarded?.remove();
  });

  it(
    'stock: the engine retries the step and charges twice; guarded: one charge and a FatalError the engine does not retry',
    SLOW,
    async () => {
      const stockRun = await runHost(stock, { action: 'start' }, { guarded: false, afterCharge: 'throw' });
      const guardedRun = await runHost(guarded, { action: 'start' }, { guarded: true, afterCharge: 'throw' });

      expect(stockRun).toMatchObject({ charged: 2, settled: { ok: true, value: { chargeId: 2 } } });
      expect(chargesOf(stock)).toBe(2);
      expect(guardedRun).toMatchObject({ charged: 1, settled: { ok: false } });
      const failure = guardedRun.settled?.ok === false ? guardedRun.settled.error.message : '';
      expect(failure).toContain('ledger_hard_block');
      expect(failure).not.toContain('retries');
      expect(chargesOf(guarded)).toBe(1);

      // The transition is the step's: its ticket the step's stepId, its scope the run.
      writeFileSync(
        join(guarded.dir, 'hyphae.yaml'),
        yaml(
          'transition: { agent_id: workflow-app, policy_version: workflow-app.1 }',
          `action_ledger: { storage: sqlite, path: ${JSON.stringify(guarded.ledgerPath)} }`,
        ),
      );
      const stuck = hyphae(guarded.dir, ['transitions', 'list', '--stuck', '--json']);
      expect(stuck.stderr).toBe('');
      const listed = JSON.parse(stuck.stdout) as { ticket: string }[];
      expect(listed).toHaveLength(1);
      expect(listed[0]).toMatchObject({ tool: 'charge', scope: { runId: guardedRun.runId }, stuck: true });
      expect(listed[0]?.ticket).toMatch(/^step_/);
    },
  );
});
