/**
 * Run every scenario with every framework, stock and with hyphae, each at the framework's own
 * default limits, and check each pair against what the scenario requires. Prints nothing:
 * `run.ts` reports, and the test reads the rows.
 */
import { readFileSync } from 'node:fs';
import { checks } from './checks.js';
import { AI_SDK_STEPS, deliverStreamText, deliverToolLoopAgent } from './frameworks/ai-sdk.js';
import { deliverAnthropic } from './frameworks/anthropic.js';
import { CLAUDE_AGENT_SCENARIOS, deliverClaudeAgent } from './frameworks/claude-agent-sdk.js';
import { deliverLangChain } from './frameworks/langchain.js';
import { RECURSION_LIMIT } from './frameworks/langchain-model.js';
import { deliverLangGraph } from './frameworks/langgraph.js';
import { deliverMastra, MASTRA_GUARDED_STEPS, MASTRA_STEPS } from './frameworks/mastra.js';
import { deliverOpenAi, OPENAI_MAX_COMPLETIONS } from './frameworks/openai.js';
import { AGENTS_MAX_TURNS, deliverOpenAiAgents, deliverOpenAiAgentsStreamed } from './frameworks/openai-agents.js';
import { type Deliver, type RunFigures, runScenario } from './harness.js';
import { type Scenario, type ScenarioId, scenarios } from './scenarios.js';

/** A framework under test. */
export interface Framework {
  readonly id:
    | 'openai'
    | 'ai-sdk-agent'
    | 'ai-sdk-stream'
    | 'langchain'
    | 'langgraph'
    | 'openai-agents'
    | 'openai-agents-stream'
    | 'anthropic'
    | 'claude-agent-sdk'
    | 'mastra';
  /** The npm package whose version is reported. */
  readonly pkg: string;
  readonly label: string;
  readonly stock: string;
  readonly guarded: string;
  /** The limit both runs have: the framework's own default. */
  readonly limit: string;
  readonly deliver: Deliver;
  /** The scenarios this framework runs, when not all of them. */
  readonly scenarios?: readonly ScenarioId[];
}

/** The framework loops, in table order. */
export const frameworks: readonly Framework[] = [
  {
    id: 'openai',
    pkg: 'openai',
    label: 'OpenAI Chat Completions',
    stock: '`client.chat.completions.runTools`, local HTTP stand-in for the endpoint',
    guarded: '`runGuardedToolLoop`, same client and server',
    limit: `${OPENAI_MAX_COMPLETIONS} completions (both defaults)`,
    deliver: deliverOpenAi,
  },
  {
    id: 'ai-sdk-agent',
    pkg: 'ai',
    label: 'AI SDK ToolLoopAgent',
    stock: '`new ToolLoopAgent({ model, tools }).generate()`, `MockLanguageModelV4`',
    guarded: '`new ToolLoopAgent(withGuards(guards, { model, tools }))`',
    limit: `${AI_SDK_STEPS} steps (its default)`,
    deliver: deliverToolLoopAgent,
  },
  {
    id: 'ai-sdk-stream',
    pkg: 'ai',
    label: 'AI SDK streamText',
    stock: '`streamText({ model, tools, stopWhen })`, read to its end',
    guarded: '`streamText({ ...withGuards(guards, { model, tools, stopWhen }) })`',
    limit: `${AI_SDK_STEPS} steps (\`isStepCount(${AI_SDK_STEPS})\`; its default is 1)`,
    deliver: deliverStreamText,
  },
  {
    id: 'langchain',
    pkg: 'langchain',
    label: 'LangChain createAgent',
    stock: '`createAgent({ model, tools })`, a scripted `BaseChatModel`',
    guarded: '+ `middleware: [hyphaeMiddleware(guards)]`',
    limit: `\`recursionLimit\` ${RECURSION_LIMIT} (the default)`,
    deliver: deliverLangChain,
  },
  {
    id: 'langgraph',
    pkg: '@langchain/langgraph',
    label: 'LangGraph StateGraph',
    stock: '`StateGraph(MessagesAnnotation)`: model node, `ToolNode`, `toolsCondition`',
    guarded: '`guardModelNode(callModel, guards)`, `guardToolNode(toolNode, guards)`',
    limit: `\`recursionLimit\` ${RECURSION_LIMIT} (the default)`,
    deliver: deliverLangGraph,
  },
  {
    id: 'openai-agents',
    pkg: '@openai/agents',
    label: 'OpenAI Agents run()',
    stock: '`run(agent, input)`, a scripted `Model`',
    guarded: '+ `guardModel`, `guardAgentTools`, `hyphaeCallModelInputFilter`',
    limit: `\`maxTurns\` ${AGENTS_MAX_TURNS} (the default)`,
    deliver: deliverOpenAiAgents,
  },
  {
    id: 'openai-agents-stream',
    pkg: '@openai/agents',
    label: 'OpenAI Agents run() streamed',
    stock: '`run(agent, input, { stream: true })`, read to its end',
    guarded: 'the same guards, streamed',
    limit: `\`maxTurns\` ${AGENTS_MAX_TURNS} (the default)`,
    deliver: deliverOpenAiAgentsStreamed,
  },
  {
    id: 'anthropic',
    pkg: '@anthropic-ai/sdk',
    label: 'Anthropic tool runner',
    stock: '`client.beta.messages.toolRunner(params)`, local HTTP stand-in for the Messages API',
    guarded: '`guardAnthropicClient(client, guards)`, `guardRunnableTools(tools, guards)`',
    limit: 'none (no `max_iterations`, its default)',
    deliver: deliverAnthropic,
  },
  {
    id: 'claude-agent-sdk',
    pkg: '@anthropic-ai/claude-agent-sdk',
    label: 'Claude Agent SDK query()',
    stock: '`query()` running the bundled Claude Code, in-process tools allowed, local Messages API',
    guarded: '+ `guardClaudeAgent`: hooks, `canUseTool`, `guardTools`, `observe`',
    limit: 'none (`maxTurns` and `maxBudgetUsd` unset by default)',
    deliver: deliverClaudeAgent,
    scenarios: CLAUDE_AGENT_SCENARIOS,
  },
  {
    id: 'mastra',
    pkg: '@mastra/core',
    label: 'Mastra Agent',
    stock: '`new Agent({ model, tools }).generate(messages)`, `MockLanguageModelV4`',
    guarded: '`new Agent(withGuards(pipeline, { model, tools }))`, `maxSteps` raised',
    limit: `\`maxSteps\` ${MASTRA_STEPS} stock (the default), ${MASTRA_GUARDED_STEPS} guarded`,
    deliver: deliverMastra,
  },
];

/** The frameworks that run `scenario`. */
export function frameworksOf(scenario: Scenario): readonly Framework[] {
  return frameworks.filter((framework) => framework.scenarios?.includes(scenario.id) ?? true);
}

/** One framework on one scenario: both runs and the check. */
export interface EfficacyRow {
  readonly framework: Framework;
  readonly scenario: Scenario;
  readonly stock: RunFigures;
  readonly hyphae: RunFigures;
  /** `null` when hyphae did what the scenario requires, else what it missed. */
  readonly missed: string | null;
}

/** The installed version of a package. */
export function versionOf(pkg: string): string {
  const url = new URL(`../../node_modules/${pkg}/package.json`, import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version;
}

/** Run one framework on one scenario, stock then guarded. */
export async function runRow(framework: Framework, scenario: Scenario): Promise<EfficacyRow> {
  const stock = await runScenario(scenario, 'stock', framework.deliver);
  const hyphae = await runScenario(scenario, 'hyphae', framework.deliver);
  return { framework, scenario, stock, hyphae, missed: checks[scenario.id](stock, hyphae) };
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
      if (!frameworksOf(scenario).includes(framework)) continue;
      rows.push(await runRow(framework, scenario));
    }
  }
  return rows;
}
