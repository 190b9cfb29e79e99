/**
 * `hyphaeMiddleware`: the guard pipeline as a LangChain v1 `createAgent` middleware.
 *
 * Where each guard sits, and why there:
 * - `wrapToolCall` (the execution boundary): registry, permission and loop fuses, argument
 *   validation, ledger, cache, output validation — every call answered by a `ToolMessage` with its id.
 * - `wrapModelCall` (the provider boundary): budget pre-flight; real usage booked from the answer.
 * - `beforeModel`: transcript repair; a stopped run ends here instead of calling the model again.
 * - `afterModel`: a run the booking just stopped answers the pending calls and jumps to the end.
 * - `beforeAgent` / `afterAgent`: a run's counters start fresh and are dropped when it ends.
 *
 * A run is one agent invocation from a human message to the final answer; an interrupt pauses it
 * (the resume continues its counters and books). However a run exits — final answer, a jump to
 * the end, an error, an abandoned interrupt — the next run on the thread starts from zero.
 */
import { AIMessage, RemoveMessage } from '@langchain/core/messages';
import { REMOVE_ALL_MESSAGES } from '@langchain/langgraph';
import type { GuardRefusal } from '../shared/types.js';
import { guardToolCall } from './guard-tool-call.js';
import { messagesOf, pendingToolCalls } from './messages.js';
import { guardModelCall, type LangChainModelRequest, type ModelCallSettings } from './model-call.js';
import { createRunRegistry, runContextOf, runOptionsOf, toPipeline } from './run-scope.js';
import { errorToolMessage } from './tool-results.js';
import { repairLangChainMessages } from './transcript.js';
import type { HyphaeMiddleware, HyphaeMiddlewareOptions, LangChainGuards, LangChainToolCall } from './types.js';

/**
 * LangChain's brand of middleware objects (`MIDDLEWARE_BRAND`, a registered symbol). Set here
 * rather than through `createMiddleware`, so that a LangGraph-only install needs no `langchain`.
 */
const MIDDLEWARE_BRAND = Symbol.for('AgentMiddleware');

/** The runtime LangChain passes to hooks. */
interface HookRuntime {
  readonly configurable?: unknown;
  readonly signal?: AbortSignal | undefined;
}

/** What `wrapToolCall` receives. */
interface ToolCallRequest {
  readonly toolCall: LangChainToolCall;
  readonly state: unknown;
  readonly runtime?: HookRuntime | undefined;
}

/** What `wrapModelCall` receives. */
interface ModelRequest extends LangChainModelRequest {
  readonly state: unknown;
  readonly runtime?: HookRuntime | undefined;
}

function positive(option: string, value: number | undefined): number | undefined {
  if (value === undefined || (Number.isSafeInteger(value) && value > 0)) return value;
  throw new RangeError(`\`${option}\` must be a positive integer, got \`${String(value)}\``);
}

/**
 * Guard a `createAgent` agent: every tool call runs through the pipeline (a blocked call is
 * answered with an error `ToolMessage` with the same `tool_call_id`, saying it did NOT happen),
 * every model call through the budget, and the transcript is repaired before each model call.
 * Tool errors become error tool messages; LangGraph's interrupts and aborts propagate.
 *
 * @example
 * import { createAgent } from 'langchain';
 * import { createFuseBox, createLedger, createMemoryStorage, loopFuse } from 'hyphae';
 * import { hyphaeMiddleware } from 'hyphae/langchain';
 *
 * const agent = createAgent({
 *   model: 'openai:gpt-4o-mini',
 *   tools: [sendPayment],
 *   middleware: [
 *     hyphaeMiddleware({
 *       ledger: createLedger({ storage: createMemoryStorage(), agentId: 'billing', policyVersion: '1' }),
 *       fuses: createFuseBox({ loop: loopFuse({ repeatThreshold: 3 }) }),
 *       tools: { send_payment: { sideEffectClass: 'payment' } },
 *     }),
 *   ],
 * });
 */
export function hyphaeMiddleware(guards: LangChainGuards, options: HyphaeMiddlewareOptions = {}): HyphaeMiddleware {
  const pipeline = toPipeline(guards);
  const registry = createRunRegistry(pipeline);
  const stopMessage = options.stopMessage ?? ((refusal: GuardRefusal) => refusal.message);
  const repair =
    options.repairTranscript === false
      ? null
      : options.repairTranscript === true || options.repairTranscript === undefined
        ? {}
        : { ...options.repairTranscript };
  const settings: ModelCallSettings = Object.freeze({
    model: options.model,
    maxOutputTokens: positive('maxOutputTokens', options.maxOutputTokens),
    stopMessage,
  });
  const scopeOf = (state: unknown, runtime: unknown) => runOptionsOf(runContextOf(state, runtime), options);

  function beforeAgent(state: unknown, runtime: HookRuntime): undefined {
    const scope = scopeOf(state, runtime);
    // A new invocation: whatever a run of the same id left behind is not carried into it.
    registry.end(scope);
    registry.get(scope);
    return undefined;
  }

  function beforeModel(state: unknown, runtime: HookRuntime): Record<string, unknown> | undefined {
    const scope = scopeOf(state, runtime);
    const run = registry.get(scope);
    const messages = messagesOf(state);
    const repaired = repair === null ? null : repairLangChainMessages(run, messages, repair);
    const replace = repaired === null ? [] : [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...repaired];
    const stoppedBy = run.stopped;
    if (stoppedBy === null) return repaired === null ? undefined : { messages: replace };
    registry.end(scope);
    return { messages: [...replace, new AIMessage({ content: stopMessage(stoppedBy) })], jumpTo: 'end' };
  }

  async function wrapModelCall(request: ModelRequest, handler: (request: never) => unknown): Promise<unknown> {
    const run = registry.get(scopeOf(request.state, request.runtime));
    return guardModelCall(run, request, handler, settings);
  }

  async function afterModel(state: unknown, runtime: HookRuntime): Promise<Record<string, unknown> | undefined> {
    const scope = scopeOf(state, runtime);
    const run = registry.get(scope);
    const stoppedBy = run.stopped;
    const pending = pendingToolCalls(messagesOf(state));
    // Without pending calls the agent ends by itself (and `afterAgent` ends the run).
    if (stoppedBy === null || pending.length === 0) return undefined;
    const answers: unknown[] = [];
    for (const call of pending) {
      // The run is stopped, so the pipeline refuses without running anything, in its own words.
      const outcome = await run.executeToolCall({ id: call.id, name: call.name, args: call.args ?? {} }, undefined);
      answers.push(errorToolMessage(call, outcome.status === 'ok' ? stopMessage(stoppedBy) : outcome.message));
    }
    registry.end(scope);
    return { messages: [...answers, new AIMessage({ content: stopMessage(stoppedBy) })], jumpTo: 'end' };
  }

  function wrapToolCall(request: ToolCallRequest, handler: (request: never) => unknown): Promise<unknown> {
    const run = registry.get(scopeOf(request.state, request.runtime));
    return guardToolCall(run, {
      call: request.toolCall,
      signal: request.runtime?.signal,
      execute: async (args) => handler({ ...request, toolCall: { ...request.toolCall, args } } as never),
    });
  }

  function afterAgent(state: unknown, runtime: HookRuntime): undefined {
    registry.end(scopeOf(state, runtime));
    return undefined;
  }

  const middleware = {
    [MIDDLEWARE_BRAND]: true,
    name: options.name ?? 'HyphaeMiddleware',
    pipeline,
    beforeAgent,
    beforeModel: { hook: beforeModel, canJumpTo: ['end'] },
    wrapModelCall,
    afterModel: { hook: afterModel, canJumpTo: ['end'] },
    wrapToolCall,
    afterAgent,
  };
  return middleware;
}
