/**
 * `withGuards`: the one call that guards an AI SDK agent loop — `ToolLoopAgent`, `generateText`
 * or `streamText` — by returning the settings to spread into it.
 */
import { wrapLanguageModel } from 'ai';
import { InvalidOptionError } from '../../errors.js';
import type { GuardRun } from '../shared/run-types.js';
import { type AiSdkToolLike, guardTools } from './guard-tools.js';
import { type HyphaeMiddlewareOptions, hyphaeMiddleware } from './middleware.js';

/** What `prepareStep` is given, as far as the guards read it. */
interface StepOptions {
  readonly messages: readonly unknown[];
}

type PrepareStep = (options: never) => unknown;

/** The settings `withGuards` reads and replaces; every other field is passed through unchanged. */
export interface AiSdkGuardedSettings {
  /** A language model object (`openai('gpt-4o-mini')`, a `MockLanguageModelV4`, …); not a model id string. */
  readonly model: object;
  readonly tools?: Readonly<Record<string, AiSdkToolLike>> | undefined;
  /** The caller's own `prepareStep`; the guards repair the messages it returns. */
  readonly prepareStep?: PrepareStep | undefined;
}

/** Options of {@link withGuards}. */
export type WithGuardsOptions = HyphaeMiddlewareOptions;

function sameMessages(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((message, index) => message === b[index]);
}

/**
 * Guard an AI SDK tool loop in one call: the model is wrapped with {@link hyphaeMiddleware}
 * (budget pre-flight, usage booking, prompt repair, and a stopped run answered with a final text
 * without calling the provider, so the loop ends by itself), the tools with `guardTools`, and
 * `prepareStep` repairs each step's messages before the AI SDK checks them — a dangling tool call
 * in the history gets a result saying it was NOT executed instead of a `MissingToolResultsError`.
 * `stopWhen` and every other setting stay as given: the caller's stop conditions, and without one
 * the framework's own default (`ToolLoopAgent`'s 20 steps, `generateText`'s single step).
 *
 * @example
 * import { ToolLoopAgent } from 'ai';
 * import { createGuardPipeline, withGuards } from 'hyphae/ai-sdk';
 *
 * const guards = createGuardPipeline(options).forRun({ threadId: 'thread-1', runId: 'run-1' });
 * const agent = new ToolLoopAgent({ ...withGuards(guards, { model, tools }), instructions: 'You help with orders' });
 * const result = await agent.generate({ prompt: 'Where is order o_7?' });
 * // guards.stopped: the verdict when the guards ended the run, else null
 */
export function withGuards<S extends AiSdkGuardedSettings>(
  guards: GuardRun,
  settings: S,
  options: WithGuardsOptions = {},
): S {
  if (
    typeof settings !== 'object' ||
    settings === null ||
    typeof settings.model !== 'object' ||
    settings.model === null
  ) {
    throw new InvalidOptionError('model', '`withGuards` needs `{ model }`: a language model object, not a model id');
  }
  const repair = options.repairTranscript !== false;
  const own = settings.prepareStep as ((options: StepOptions) => unknown) | undefined;
  async function prepareStep(step: StepOptions): Promise<unknown> {
    const chosen = (await own?.(step)) as { readonly messages?: readonly unknown[] } | undefined | null;
    const messages = chosen?.messages ?? step.messages;
    const repaired = guards.repairTranscript(messages, { format: 'ai-sdk' });
    if (sameMessages(messages, repaired)) return chosen ?? undefined;
    return { ...chosen, messages: repaired };
  }
  return {
    ...settings,
    model: wrapLanguageModel({
      model: settings.model as Parameters<typeof wrapLanguageModel>[0]['model'],
      middleware: hyphaeMiddleware(guards, options) as never,
    }),
    ...(settings.tools === undefined ? {} : { tools: guardTools(settings.tools, guards) }),
    ...(repair ? { prepareStep } : {}),
  };
}
