/**
 * What every framework runner shares: the meter the scripted models count calls and tokens on, the
 * provider-side transcript check, and the driver that runs a scenario's deliveries and gathers one
 * row of figures.
 */
import type { GuardPipeline } from '../../src/adapters/openai.js';
import { createBenchPipeline, createGuardLog } from './guards.js';
import type { Scenario, Turn, Usage } from './scenarios.js';
import { createProvider, type FakeProvider } from './tools.js';

/** Stock framework, or the same with hyphae. */
export type Variant = 'stock' | 'hyphae';

/** Model calls that reached the scripted model, and the tokens of those it answered. */
export interface Meter {
  modelCalls: number;
  tokens: number;
}

/** A scripted model's script: the next turn of each call; a text answer once it is used up. */
export interface Script {
  next(): Turn;
}

/** Total tokens of a usage. */
export const totalOf = (usage: Usage): number => usage.input + usage.output;

/** A script over `turns` that books each answered call on `meter`. */
export function createScript(turns: readonly Turn[], meter: Meter): Script {
  const left = [...turns];
  return {
    next() {
      const turn = left.shift() ?? { text: '(script exhausted)', usage: { input: 0, output: 0 } };
      meter.tokens += totalOf(turn.usage);
      return turn;
    },
  };
}

/** A tool call made, or a tool result given, in a prompt. */
export type TranscriptEvent = { readonly call: string } | { readonly result: string };

/**
 * The provider-side check every scripted model applies before it answers: a tool result must
 * answer a call made earlier in the prompt. The Chat Completions endpoint refuses such a prompt
 * with a 400 (`messages with role 'tool' must be a response to a preceding message with
 * 'tool_calls'`); so does every scripted model here. Returns the first orphan's call id, or null.
 */
export function firstOrphan(items: readonly TranscriptEvent[]): string | null {
  const called = new Set<string>();
  for (const item of items) {
    if ('call' in item) called.add(item.call);
    else if (!called.has(item.result)) return item.result;
  }
  return null;
}

/** The provider's words for an orphan result. */
export const orphanMessage = (id: string): string =>
  `Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls' (tool_call_id \`${id}\`)`;

/** What one delivery of a scenario is handed. */
export interface Delivery {
  readonly scenario: Scenario;
  readonly provider: FakeProvider;
  readonly meter: Meter;
  /** The guards, in a hyphae run; the same pipeline for every delivery of the run. */
  readonly pipeline: GuardPipeline | undefined;
  /** The thread and run every delivery of the scenario shares. */
  readonly scope: { readonly threadId: string; readonly runId: string };
}

/** Runs one delivery with a framework and says how it ended. */
export type Deliver = (delivery: Delivery) => Promise<string>;

/** The figures of one run. */
export interface RunFigures {
  readonly toolExecutions: number;
  readonly modelCalls: number;
  readonly tokens: number;
  readonly effects: number;
  readonly ended: string;
  readonly guards: string;
}

/** An error, as the end of a run. */
export function errorEnding(error: unknown): string {
  const fields =
    typeof error === 'object' && error !== null ? (error as { status?: unknown; statusCode?: unknown }) : {};
  const status = fields.status ?? fields.statusCode;
  const name = error instanceof Error ? error.constructor.name : 'error';
  return typeof status === 'number' ? `provider error ${status}` : `threw \`${name}\``;
}

/** Run a scenario's deliveries with one framework and variant. */
export async function runScenario(scenario: Scenario, variant: Variant, deliver: Deliver): Promise<RunFigures> {
  const provider = createProvider();
  const meter: Meter = { modelCalls: 0, tokens: 0 };
  const log = createGuardLog();
  const pipeline = variant === 'hyphae' ? createBenchPipeline(log.onEvent) : undefined;
  const delivery: Delivery = {
    scenario,
    provider,
    meter,
    pipeline,
    scope: { threadId: `thread-${scenario.id}`, runId: `run-${scenario.id}` },
  };
  const settle = (run: Promise<string>) => run.catch(errorEnding);
  const first = settle(deliver(delivery));
  const endings = [first];
  if (scenario.deliveries === 2) {
    // The redelivery arrives while the first delivery's payment is in flight.
    await Promise.race([provider.paymentStarted, first]);
    endings.push(settle(deliver(delivery)));
  }
  const ended = await Promise.all(endings);
  return {
    toolExecutions: provider.executions(),
    modelCalls: meter.modelCalls,
    tokens: meter.tokens,
    effects: provider.effects.length,
    ended: ended.every((end) => end === ended[0]) ? (ended[0] ?? '') : ended.join(' / '),
    guards: variant === 'hyphae' ? log.summary() : '—',
  };
}

/** How a hyphae refusal ended a run. */
export function stopEnding(refusal: { readonly stage: string; readonly code: string }): string {
  return refusal.stage === 'model'
    ? `model call refused (\`${refusal.code}\`)`
    : `stopped by hyphae (\`${refusal.code}\`)`;
}

/** The ending of a run whose model gave its final answer. */
export const COMPLETED = 'completed';
/** The ending of a run its framework's step limit ended. */
export const maxSteps = (limit: number): string => `max steps (${limit})`;
