/**
 * The pipeline's refusals of a ledgered tool leave denial records on every store, and never claim
 * the transition: the refused call, allowed after a reset, runs exactly once.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createGuardPipeline } from '../../src/adapters/pipeline.js';
import { createFuseBox, createToolRegistry, loopFuse } from '../../src/index.js';
import { everyStore, ledgerOn } from '../helpers/every-store.js';

const stores = await everyStore();

describe.each(stores)('pipeline denials on %s', (_name, backend) => {
  afterAll(() => backend.dispose());

  it('records a loop refusal, counts its redispatch, and runs the call once after a reset', async () => {
    const { storage, cleanup } = await backend.open();
    try {
      const ledger = ledgerOn(storage);
      const tool = `refund_${randomUUID().slice(0, 8)}`;
      const pipeline = createGuardPipeline({
        ledger,
        fuses: createFuseBox({ loop: loopFuse({ repeatThreshold: 2, terminal: false }) }),
        tools: { [tool]: { sideEffectClass: 'payment' } },
      });
      const run = pipeline.forRun({ runId: `run-${randomUUID()}` });
      let runs = 0;
      const body = () => ++runs;
      const call = (id: string) => run.executeToolCall({ id, name: tool, args: { order: 'o_7' } }, body);

      let refusedId: string | undefined;
      let calls = 0;
      while (refusedId === undefined && calls < 5) {
        const outcome = await call(`c${++calls}`);
        if (outcome.status === 'refused') refusedId = `c${calls}`;
        expect(outcome).toMatchObject(outcome.status === 'refused' ? { stage: 'fuses' } : { status: 'ok' });
      }
      if (refusedId === undefined) throw new Error('the loop fuse never refused');
      expect(runs).toBe(calls - 1);
      // The same call id again in the same turn is a redispatch: the same refusal, counted once more.
      expect(await call(refusedId)).toMatchObject({ status: 'refused', stage: 'fuses' });

      const denials = (await ledger.list({ tool, kind: 'denial' })).records;
      expect(denials).toHaveLength(1);
      const [denial] = denials;
      expect(denial).toMatchObject({ ticket: refusedId, attempts: 2, outcome: 'BLOCKED', boundary: 'not_crossed' });
      expect(denial?.decision?.deniedReasons).toEqual([expect.stringMatching(/^loop: /)]);
      expect(await ledger.get(denial?.refusedTransition as string)).toBeNull();

      run.reset();
      expect(await call(refusedId)).toMatchObject({ status: 'ok', source: 'tool' });
      expect(await call(refusedId)).toMatchObject({ status: 'ok', source: 'ledger' });
      expect(runs).toBe(calls);
      expect((await ledger.get(denial?.refusedTransition as string))?.outcome).toBe('COMPLETED');
    } finally {
      await cleanup();
    }
  });

  it('records a registry refusal of a tool the framework has, and nothing for one it has not', async () => {
    const { storage, cleanup } = await backend.open();
    try {
      const ledger = ledgerOn(storage);
      const [denied, invented] = [`delete_repo_${randomUUID().slice(0, 8)}`, `made_up_${randomUUID().slice(0, 8)}`];
      const run = createGuardPipeline({ ledger, registry: createToolRegistry({ allowed: ['lookup'] }) }).forRun({
        runId: `run-${randomUUID()}`,
      });

      const refused = await run.executeToolCall({ id: 'c1', name: denied, args: { repo: 'x' } }, () => 'gone');
      const unknown = await run.executeToolCall({ id: 'c2', name: invented, args: {} }, undefined);

      expect(refused).toMatchObject({ status: 'refused', stage: 'registry' });
      expect(unknown).toMatchObject({ status: 'refused' });
      const records = [
        ...(await ledger.list({ tool: denied })).records,
        ...(await ledger.list({ tool: invented })).records,
      ];
      expect(records.map((r) => [r.kind, r.tool, r.decision?.verdicts[0]?.check])).toEqual([
        ['denial', denied, 'registry'],
      ]);
    } finally {
      await cleanup();
    }
  });
});
