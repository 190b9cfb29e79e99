/**
 * The durable-engine rows of the efficacy bench as tests: every engine with every case it runs,
 * stock then guarded, over the real engines (DBOS on PostgreSQL, the Workflow DevKit on its local
 * world). Stock must charge more than once (the failure is real), guarded exactly once. The bench
 * writes the table; these keep it true.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { engines, enginesOnThisNode, nodeMajor } from '../../bench/efficacy/engines/index.js';
import { missedBy, runEngineRow } from '../../bench/efficacy/engines/rows.js';
import type { Engine } from '../../bench/efficacy/engines/types.js';
import { integrationSkip, probePostgres } from '../helpers/integration.js';

const postgres = await probePostgres();
const { runnable, skipped } = enginesOnThisNode();
/** Each engine's runs start its app in child processes, several per case, on a shared machine. */
const SLOW = 300_000;

for (const engine of runnable) {
  const skip = engine.needs?.includes('postgres') === true && integrationSkip(postgres);
  describe.skipIf(skip)(`durable engine: ${engine.label}`, () => {
    afterAll(() => engine.close?.(), SLOW);

    it.each(engine.cases.map((caseId) => [caseId]))(
      '%s: stock charges more than once, guarded exactly once',
      async (caseId) => {
        const row = await runEngineRow(engine, caseId);

        expect(row.stock.charges).toBeGreaterThan(1);
        expect(row.guarded.charges).toBe(1);
        expect(row.missed).toBeNull();
      },
      SLOW,
    );
  });
}

for (const { engine } of skipped) {
  describe(`durable engine: ${engine.label}`, () => {
    it(`does not apply on Node.js ${process.versions.node}: it needs Node.js ${engine.minNode} or later`, () => {
      expect(nodeMajor()).toBeLessThan(engine.minNode);
    });
  });
}

describe('durable engines: the table', () => {
  const fake = (id: Engine['id'], minNode: number): Engine => ({
    id,
    pkg: id,
    label: id,
    setup: '',
    minNode,
    cases: [],
    run: () => Promise.reject(new Error('not run')),
  });

  it('skips an engine whose minNode is above the running Node, recording why, and keeps the order', () => {
    const { runnable: ran, skipped: left } = enginesOnThisNode([fake('dbos', 20), fake('restate', 22)], 20);

    expect(ran.map((engine) => engine.id)).toEqual(['dbos']);
    expect(left.map(({ engine, reason }) => [engine.id, reason])).toEqual([
      ['restate', 'needs Node 22 or later (ran on Node 20)'],
    ]);
    expect(enginesOnThisNode([fake('dbos', 20), fake('restate', 22)], 22).skipped).toEqual([]);
  });

  it('meets the requirement with one charge and an ending the engine does not retry, and no other way', () => {
    expect(missedBy({ charges: 1, outcome: 'completed' })).toBeNull();
    expect(missedBy({ charges: 1, outcome: 'failed: ledger_hard_block' })).toBeNull();
    expect(missedBy({ charges: 2, outcome: 'completed' })).toBe('2 charges');
    expect(missedBy({ charges: 0, outcome: 'failed: ledger_hard_block' })).toBe('0 charges');
    expect(missedBy({ charges: 1, outcome: 'failed: Error' })).toBe('ended `failed: Error`');
  });

  it('lists every engine of the bench once', () => {
    expect(new Set(engines.map((engine) => engine.id)).size).toBe(engines.length);
    expect(engines.map((engine) => engine.id)).toEqual(['dbos', 'workflow', 'restate']);
  });
});
