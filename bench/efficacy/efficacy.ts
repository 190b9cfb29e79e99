/**
 * Run every scenario with every framework, stock and with hyphae, and check each pair against what
 * the scenario expects. Prints nothing: `run.ts` reports, and the test reads the rows.
 */
import { readFileSync } from 'node:fs';
import { checks } from './checks.js';
import { deliverAiSdk } from './frameworks/ai-sdk.js';
import { deliverLangChain } from './frameworks/langchain.js';
import { deliverOpenAi } from './frameworks/openai.js';
import { deliverOpenAiAgents } from './frameworks/openai-agents.js';
import { type Deliver, type RunFigures, runScenario } from './harness.js';
import { type Scenario, type ScenarioId, scenarios } from './scenarios.js';

/** A framework under test. */
export interface Framework {
  readonly id: 'openai' | 'ai-sdk' | 'langchain' | 'openai-agents';
  /** The npm package whose version is reported. */
  readonly pkg: string;
  readonly label: string;
  readonly stock: string;
  readonly guarded: string;
  readonly deliver: Deliver;
}

export const frameworks: readonly Framework[] = [
  {
    id: 'openai',
    pkg: 'openai',
    label: 'OpenAI Chat Completions',
    stock: '`client.chat.completions.runTools` (`maxChatCompletions`), local HTTP stand-in for the endpoint',
    guarded: '`runGuardedToolLoop` (`maxTurns`), same client and server',
    deliver: deliverOpenAi,
  },
  {
    id: 'ai-sdk',
    pkg: 'ai',
    label: 'Vercel AI SDK',
    stock: '`generateText` with `stopWhen: isStepCount(n)`, `MockLanguageModelV4`',
    guarded: '+ `guardTools`, `hyphaeStopWhen`, `wrapLanguageModel(hyphaeMiddleware)`',
    deliver: deliverAiSdk,
  },
  {
    id: 'langchain',
    pkg: 'langchain',
    label: 'LangChain createAgent',
    stock: '`createAgent` with `modelCallLimitMiddleware({ runLimit: n })`, a scripted `BaseChatModel`',
    guarded: '+ `hyphaeMiddleware`',
    deliver: deliverLangChain,
  },
  {
    id: 'openai-agents',
    pkg: '@openai/agents',
    label: 'OpenAI Agents',
    stock: '`run(agent, input, { maxTurns: n })`, a scripted `Model`',
    guarded: '+ `guardAgentTools`, `hyphaeCallModelInputFilter`, `guardModel`',
    deliver: deliverOpenAiAgents,
  },
];

/** One framework on one scenario: both runs and the check. */
export interface EfficacyRow {
  readonly framework: Framework;
  readonly scenario: Scenario;
  readonly stock: RunFigures;
  readonly hyphae: RunFigures;
  /** `null` when hyphae did what the scenario expects, else what it missed. */
  readonly missed: string | null;
}

/** The installed version of a package. */
export function versionOf(pkg: string): string {
  const url = new URL(`../../node_modules/${pkg}/package.json`, import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version;
}

/** Run the chosen scenarios with the chosen frameworks (default: all), one run at a time. */
export async function runEfficacy(
  only: { readonly frameworks?: readonly Framework['id'][]; readonly scenarios?: readonly ScenarioId[] } = {},
): Promise<EfficacyRow[]> {
  const rows: EfficacyRow[] = [];
  for (const scenario of scenarios) {
    if (only.scenarios !== undefined && !only.scenarios.includes(scenario.id)) continue;
    for (const framework of frameworks) {
      if (only.frameworks !== undefined && !only.frameworks.includes(framework.id)) continue;
      const stock = await runScenario(scenario, 'stock', framework.deliver);
      const hyphae = await runScenario(scenario, 'hyphae', framework.deliver);
      rows.push({ framework, scenario, stock, hyphae, missed: checks[scenario.id](stock, hyphae) });
    }
  }
  return rows;
}
