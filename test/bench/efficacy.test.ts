/**
 * The efficacy bench's rows as tests: every scenario with every framework, over the real framework
 * packages (scripted models, no network), at each framework's own default limits, with hyphae
 * configured by `examples/guards.ts`. The bench writes the table; these keep it true.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { frameworks, frameworksOf, runRow } from '../../bench/efficacy/efficacy.js';
import { scenarioOf, scenarios } from '../../bench/efficacy/scenarios.js';

describe.each(scenarios.map((scenario) => [scenario.id, scenario] as const))('efficacy: %s', (_id, scenario) => {
  it.each(frameworksOf(scenario).map((framework) => [framework.id, framework] as const))(
    `meets "${scenario.expected}" with %s`,
    async (_framework, framework) => {
      const row = await runRow(framework, scenario);

      expect(row.missed).toBeNull();
    },
  );
});

describe('efficacy: the stock baselines show the failure', () => {
  it('lets a loop run to each framework’s own limit, and pays twice on a redelivery', async () => {
    const loop = await Promise.all(frameworks.map((framework) => runRow(framework, scenarioOf('loop'))));
    expect(loop.map((row) => [row.framework.id, row.stock.modelCalls, row.stock.ended])).toEqual([
      ['openai', 10, 'max steps (10)'],
      ['ai-sdk-agent', 20, 'max steps (20)'],
      ['ai-sdk-stream', 20, 'max steps (20)'],
      ['langchain', 13, 'threw `GraphRecursionError`'],
      ['langgraph', 13, 'threw `GraphRecursionError`'],
      ['openai-agents', 10, 'threw `MaxTurnsExceededError`'],
      ['openai-agents-stream', 10, 'threw `MaxTurnsExceededError`'],
      ['anthropic', 31, 'completed'],
      ['claude-agent-sdk', 31, 'completed'],
      ['mastra', 5, 'max steps (5)'],
    ]);
    const twins = await runRow(frameworks[1] as (typeof frameworks)[number], scenarioOf('twin-calls'));
    expect([twins.stock.effects, twins.hyphae.effects]).toEqual([2, 1]);
  });
});

/** The code of the `guards` region of `examples/guards.ts`. */
function guardsRegion(): string {
  const source = readFileSync(new URL('../../examples/guards.ts', import.meta.url), 'utf8');
  const match = /\/\/ #region guards\n([\s\S]*?)\/\/ #endregion guards/.exec(source);
  if (match?.[1] === undefined) throw new Error('examples/guards.ts has no `guards` region');
  return match[1];
}

describe('efficacy: the configuration the docs show is the one the bench runs', () => {
  const dir = new URL('../../docs/adapters/', import.meta.url);
  const pages = readdirSync(dir).filter((file) => file.endsWith('.md'));

  it.each([
    'pipeline.md',
    'openai.md',
    'ai-sdk.md',
    'langchain.md',
    'openai-agents.md',
    'anthropic.md',
    'claude-agent-sdk.md',
    'mastra.md',
  ])('docs/adapters/%s embeds the `guards` region of examples/guards.ts as it is', (page) => {
    expect(pages).toContain(page);
    const text = readFileSync(new URL(page, dir), 'utf8');
    const block = /<!-- guards: examples\/guards\.ts -->\n```ts\n([\s\S]*?)```/.exec(text);

    expect(block?.[1]).toBe(guardsRegion());
  });
});
