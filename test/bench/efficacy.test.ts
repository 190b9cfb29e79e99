import { describe, expect, it } from 'vitest';
import { runEfficacy } from '../../bench/efficacy/efficacy.js';

describe('efficacy benchmark runner', () => {
  it('charges once with hyphae and twice stock when a slow payment is redelivered, on every framework', async () => {
    const rows = await runEfficacy({ scenarios: ['redispatch'] });

    expect(rows.map((row) => row.framework.id)).toEqual(['openai', 'ai-sdk', 'langchain', 'openai-agents']);
    for (const row of rows) {
      expect([row.framework.id, row.stock.effects, row.stock.toolExecutions]).toEqual([row.framework.id, 2, 2]);
      expect([row.framework.id, row.hyphae.effects, row.hyphae.toolExecutions]).toEqual([row.framework.id, 1, 1]);
      expect(row.hyphae.ended).toBe('completed');
      expect(row.hyphae.guards).toBe('1 answered from the ledger');
    }
  });

  it('lets a poll whose answer changes run as often as stock, and refuses the ungranted refund', async () => {
    const rows = await runEfficacy({ scenarios: ['polling', 'permission'] });

    for (const row of rows)
      expect([row.framework.id, row.scenario.id, row.missed]).toEqual([row.framework.id, row.scenario.id, null]);
    const polling = rows.filter((row) => row.scenario.id === 'polling');
    expect(polling.map((row) => row.hyphae.toolExecutions)).toEqual([5, 5, 5, 5]);
    const permission = rows.filter((row) => row.scenario.id === 'permission');
    expect(permission.map((row) => [row.stock.effects, row.hyphae.effects])).toEqual([
      [1, 0],
      [1, 0],
      [1, 0],
      [1, 0],
    ]);
  });
});
