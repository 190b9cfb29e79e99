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

/** Model requests that reached the scripted model, the tokens of those it answered, the 400s it sent. */
export interface Meter {
  modelCalls: number;
  tokens: number;
  rejected: number;
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

/** A tool call made, a tool result given, or any other message, in a prompt. */
export type TranscriptEvent = { readonly call: string } | { readonly result: string } | { readonly message: true };

/**
 * The provider-side check every scripted model applies before it answers, as the Chat Completions
 * endpoint does (a 400): a tool result must answer a call made earlier in the prompt, and a call
 * must be answered before the next message. Returns the provider's words, or null.
 */
export function transcriptError(items: readonly TranscriptEvent[]): string | null {
  const called = new Set<string>();
  const open = new Set<string>();
  for (const item of items) {
    if ('call' in item) {
      called.add(item.call);
      open.add(item.call);
    } else if ('result' in item) {
      if (!called.has(item.result)) {
        return `Invalid parameter: messages with role 'tool' must be a response to a preceding message with 'tool_calls' (tool_call_id \`${item.result}\`)`;
      }
      open.delete(item.result);
    } else if (open.size > 0) {
      return `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id' (missing \`${[...open].join('`, `')}\`)`;
    }
  }
  return null;
}

/** Count a provider refusal of a prompt on the meter, and return the error to throw. */
export function rejectPrompt<E>(meter: Meter, make: (message: string) => E, message: string): E {
  meter.rejected++;
  return make(message);
}

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
  /** Prompts the provider refused (400). */
  readonly rejected: number;
  readonly ended: string;
  readonly guards: string;
}

/** An error, as the end of a run (a wrapped provider error reads as the provider's). */
export function errorEnding(error: unknown): string {
  let current = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const fields = current as { status?: unknown; statusCode?: unknown; cause?: unknown };
    const status = fields.status ?? fields.statusCode;
    if (typeof status === 'number') return `provider error ${status}`;
    current = fields.cause;
  }
  const name = error instanceof Error ? error.constructor.name : 'error';
  return `threw \`${name}\``;
}

/** Run a scenario's deliveries with one framework and variant. */
export async function runScenario(scenario: Scenario, variant: Variant, deliver: Deliver): Promise<RunFigures> {
  const provider = createProvider(scenario.provider);
  const meter: Meter = { modelCalls: 0, tokens: 0, rejected: 0 };
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
  const endings: string[] = [];
  if (scenario.deliveries.mode === 'concurrent') {
    const first = settle(deliver(delivery));
    const all = [first];
    for (let i = 1; i < scenario.deliveries.count; i++) {
      // The redelivery arrives while the first delivery's payment is in flight.
      await Promise.race([provider.paymentStarted, first]);
      all.push(settle(deliver(delivery)));
    }
    endings.push(...(await Promise.all(all)));
  } else {
    for (let i = 0; i < scenario.deliveries.count; i++) endings.push(await settle(deliver(delivery)));
  }
  // A request a tool gave up on still finishes at the provider; its effect counts.
  await provider.idle();
  return {
    toolExecutions: provider.executions(),
    modelCalls: meter.modelCalls,
    tokens: meter.tokens,
    effects: provider.effects.length,
    rejected: meter.rejected,
    ended: endings.every((end) => end === endings[0]) ? (endings[0] ?? '') : endings.join(' / '),
    guards: variant === 'hyphae' ? log.summary() : '—',
  };
}

/** How a hyphae refusal ended a run. */
export function stopEnding(refusal: { readonly code: string }): string {
  return `stopped by hyphae (\`${refusal.code}\`)`;
}

/** The ending of a run whose model gave its final answer. */
export const COMPLETED = 'completed';
/** The ending of a run its framework's step limit ended. */
export const maxSteps = (limit: number): string => `max steps (${limit})`;
