/**
 * A Workflow DevKit host SIGKILLed after its step charged and before the step returned, then
 * restarted (the local world re-enqueues the unfinished run): stock charges twice; with
 * `hyphae/workflow` the re-run step meets the dead attempt's claim, the run fails with a
 * `FatalError` the engine does not retry, the transition is listed as stuck, and after an
 * operator's release a new run of the workflow ends with the released result — one charge in all.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hyphae } from '../../config/cli-runner.js';
import { yaml } from '../../config/helpers.js';
import { type BuiltApp, buildApp, chargesOf, runHost } from './app.js';

const SLOW = { timeout: 240_000 };

describe('hyphae/workflow: a host killed after its step charged', () => {
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

  it('stock: the re-enqueued run runs the step again and charges twice', SLOW, async () => {
    const settings = { guarded: false, afterCharge: 'hang' } as const;

    const crashed = await runHost(stock, { action: 'start' }, settings, { killAfterCharge: true });
    const recovered = await runHost(
      stock,
      { action: 'recover', runId: crashed.runId ?? '' },
      { ...settings, afterCharge: 'return' },
    );

    expect(crashed).toMatchObject({ charged: 1, killed: true, settled: null });
    expect(recovered).toMatchObject({ charged: 1, settled: { ok: true, value: { chargeId: 2 } } });
    expect(chargesOf(stock)).toBe(2);
  });

  it(
    'guarded: one charge, a FatalError, listed as stuck, released, then a new run ends with the result',
    SLOW,
    async () => {
      const settings = { guarded: true, afterCharge: 'hang', keyed: true } as const;
      writeFileSync(
        join(guarded.dir, 'hyphae.yaml'),
        yaml(
          'transition: { agent_id: workflow-app, policy_version: workflow-app.1 }',
          `action_ledger: { storage: sqlite, path: ${JSON.stringify(guarded.ledgerPath)} }`,
        ),
      );

      const crashed = await runHost(guarded, { action: 'start' }, settings, { killAfterCharge: true });
      const recovered = await runHost(
        guarded,
        { action: 'recover', runId: crashed.runId ?? '' },
        { ...settings, afterCharge: 'return' },
      );

      expect(crashed).toMatchObject({ charged: 1, killed: true, settled: null });
      expect(recovered).toMatchObject({ charged: 0, settled: { ok: false } });
      const failure = recovered.settled?.ok === false ? recovered.settled.error : undefined;
      expect(failure?.message).toContain('ledger_hard_block');
      expect(failure?.message).not.toContain('retries');
      expect(chargesOf(guarded)).toBe(1);

      const stuck = hyphae(guarded.dir, ['transitions', 'list', '--stuck', '--json']);
      expect(stuck.stderr).toBe('');
      const listed = JSON.parse(stuck.stdout) as { key: string }[];
      expect(listed).toHaveLength(1);
      expect(listed[0]).toMatchObject({
        tool: 'charge',
        scope: { runId: 'charge:ord_1' },
        boundary: 'maybe_crossed',
        ticket: 'charge:ord_1',
        stuck: true,
      });
      const key = listed[0]?.key ?? '';

      // The restarted host told the ledger its earlier process is gone (at the default lease, the
      // re-enqueued step did not wait for it to run out): the operator only finds the charge at the
      // provider and records it as the step's result.
      const shown = JSON.parse(hyphae(guarded.dir, ['transitions', 'show', key, '--json']).stdout) as {
        workerDeath?: { by?: string };
      };
      expect(shown.workerDeath).toMatchObject({ by: 'host' });
      const released = hyphae(guarded.dir, [
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

      const rerun = await runHost(guarded, { action: 'start' }, { ...settings, afterCharge: 'return' });

      expect(rerun).toMatchObject({ charged: 0, settled: { ok: true, value: { chargeId: 1 } } });
      expect(rerun.runId).not.toBe(crashed.runId);
      expect(chargesOf(guarded)).toBe(1);
      expect(JSON.parse(hyphae(guarded.dir, ['transitions', 'list', '--stuck', '--json']).stdout)).toEqual([]);
    },
  );
});
