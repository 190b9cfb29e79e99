import { describe, expect, it } from 'vitest';
import { createGuardPipeline } from '../../src/adapters/pipeline.js';
import {
  createFuseBox,
  createLedger,
  createMemoryStorage,
  createToolRegistry,
  effectStateOf,
  type Ledger,
  loopFuse,
  type TransitionRecord,
} from '../../src/index.js';

function memoryLedger(): Ledger {
  return createLedger({ storage: createMemoryStorage(), agentId: 'agent', policyVersion: '1' });
}

async function onlyRecord(ledger: Ledger): Promise<TransitionRecord> {
  const { records } = await ledger.list();
  expect(records).toHaveLength(1);
  return records[0] as TransitionRecord;
}

describe('the pipeline writes its checks verdicts with the ledger claim', () => {
  it('records the registry, fuses and arguments verdicts, then the ledger, before the body runs', async () => {
    const ledger = memoryLedger();
    const run = createGuardPipeline({
      ledger,
      fuses: createFuseBox({ loop: loopFuse({ repeatThreshold: 3 }) }),
      registry: createToolRegistry({ allowed: ['refund'] }),
      tools: { refund: { sideEffectClass: 'payment', schema: { amount: { type: 'number' } } } },
    }).forRun({ runId: 'r1' });
    let during: TransitionRecord | undefined;

    const outcome = await run.executeToolCall({ id: 'c1', name: 'refund', args: { amount: 4 } }, async () => {
      during = await onlyRecord(ledger);
      return { refunded: 4 };
    });

    expect(outcome.status).toBe('ok');
    expect(during?.decision?.verdicts.map((v) => v.check)).toEqual(['registry', 'fuses', 'arguments', 'ledger']);
    expect(during && effectStateOf(during)).toBe('ATTEMPTING');
    expect(effectStateOf(await onlyRecord(ledger))).toBe('COMMITTED');
  });

  it('records the verdict a beforeClaim hook gives (an approval found)', async () => {
    const ledger = memoryLedger();
    const run = createGuardPipeline({ ledger, tools: { refund: { sideEffectClass: 'payment' } } }).forRun({
      runId: 'r1',
    });

    await run.executeToolCall({ id: 'c1', name: 'refund', args: {} }, () => 'ok', {
      beforeClaim: async () => ({ verdict: { check: 'approval', verdict: 'allow', reason: 'approved' } }),
    });

    expect((await onlyRecord(ledger)).decision?.verdicts).toEqual([
      { check: 'approval', verdict: 'allow', reason: 'approved' },
      { check: 'ledger', verdict: 'allow', reason: 'fresh claim' },
    ]);
  });

  it('refuses on a denying beforeClaim verdict, ledgered or not, and claims no transition', async () => {
    const ledger = memoryLedger();
    const run = createGuardPipeline({
      ledger,
      tools: { refund: { sideEffectClass: 'payment' }, note: { sideEffectClass: 'payment', ledger: false } },
    }).forRun({ runId: 'r1' });
    let runs = 0;
    const deny = async () => ({ verdict: { check: 'approval', verdict: 'deny' as const, reason: 'refused by ops' } });

    const ledgered = await run.executeToolCall({ id: 'c1', name: 'refund', args: {} }, () => runs++, {
      beforeClaim: deny,
    });
    const outside = await run.executeToolCall({ id: 'c2', name: 'note', args: {} }, () => runs++, {
      beforeClaim: deny,
    });

    for (const outcome of [ledgered, outside]) {
      expect(outcome).toMatchObject({ status: 'refused', code: 'decision_denied' });
      if (outcome.status === 'refused') expect(outcome.message).toMatch(/NOT executed/);
    }
    expect(runs).toBe(0);
    // The ledgered refusal leaves its denial record; the tool outside the ledger leaves nothing.
    expect((await ledger.list({ kind: 'tool' })).records).toEqual([]);
    const denials = (await ledger.list({ kind: 'denial' })).records;
    expect(denials.map((d) => [d.tool, d.ticket, d.decision?.deniedReasons])).toEqual([
      ['refund', 'c1', ['refused by ops']],
    ]);
  });
});
