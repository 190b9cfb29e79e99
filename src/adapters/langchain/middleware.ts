/**
 * `hyphaeMiddleware`: the guard pipeline as a LangChain v1 `createAgent` middleware.
 *
 * It uses only the two wrapping hooks, which run inside the agent's own model and tool nodes:
 * `beforeModel`, `afterModel`, `beforeAgent` and `afterAgent` would each be a graph step of their
 * own and spend the run's `recursionLimit`, so a guarded agent would get fewer tool turns than a
 * stock one.
 * - `wrapToolCall` (the execution boundary): registry, permission and loop fuses, argument
 *   validation, ledger, cache, output validation — every call answered by a `ToolMessage` with its id.
 * - `wrapModelCall` (the provider boundary): a stopped run ends here with a final `AIMessage`
 *   instead of a model call; the prompt is repaired; the budget pre-flight runs; real usage is booked.
 *
 * A run is one agent invocation from a human message to the final answer; an interrupt pauses it
 * (the resume continues its counters and books). The next invocation starts from zero.
 */
import type { RepairTranscriptOptions } from '../../context/transcript/repair.js';
import { checkArguments } from '../../invalid-argument.js';
import { integerOption } from '../../option-checks.js';
import type { GuardRefusal } from '../shared/types.js';
import { guardToolCall } from './guard-tool-call.js';
import { messagesOf } from './messages.js';
import { guardModelCall, type LangChainModelRequest, type ModelCallSettings } from './model-call.js';
import { opensInvocation, registryOf, runContextOf, runOptionsOf, toPipeline } from './run-scope.js';
import { stopAnswer } from './stop.js';
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
  return value === undefined ? undefined : integerOption(option, value);
}

/** The repair options of `repairTranscript`, or `null` when it is off. */
function repairOptionsOf(
  option: HyphaeMiddlewareOptions['repairTranscript'],
): Omit<RepairTranscriptOptions, 'format'> | null {
  if (option === false) return null;
  return option === true || option === undefined ? {} : { ...option };
}

/**
 * Guard a `createAgent` agent: every tool call runs through the pipeline (a blocked call is
 * answered with an error `ToolMessage` with the same `tool_call_id`, saying it did NOT happen),
 * every model call through the budget, and the prompt is repaired before each model call. A run
 * the guards stopped ends at its next model call: no request is sent, and the agent's last
 * message is an `AIMessage` with the refusal's note and the verdict in `response_metadata.hyphae`.
 * Adds no graph step, so the agent keeps its whole `recursionLimit`. Tool errors become error
 * tool messages; LangGraph's interrupts and aborts propagate; a provider error propagates (LangChain
 * wraps what a middleware throws in a `MiddlewareError` whose `cause` is the provider's error).
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
  checkArguments('hyphaeMiddleware', { guards, options });
  const pipeline = toPipeline(guards);
  const registry = registryOf(pipeline);
  const stopMessage = options.stopMessage ?? ((refusal: GuardRefusal) => refusal.message);
  const repair = repairOptionsOf(options.repairTranscript);
  const settings: ModelCallSettings = Object.freeze({
    model: options.model,
    maxOutputTokens: positive('maxOutputTokens', options.maxOutputTokens),
    stopMessage,
  });
  const scopeOf = (state: unknown, runtime: unknown) => runOptionsOf(runContextOf(state, runtime), options);

  async function wrapModelCall(request: ModelRequest, handler: (request: never) => unknown): Promise<unknown> {
    const scope = scopeOf(request.state, request.runtime);
    // A new invocation: whatever a run of the same id left behind is not carried into it.
    if (opensInvocation(messagesOf(request.state))) registry.end(scope);
    const run = registry.get(scope);
    const stoppedBy = run.stopped;
    if (stoppedBy !== null) {
      registry.end(scope);
      return stopAnswer(stoppedBy, stopMessage(stoppedBy));
    }
    const messages = request.messages ?? [];
    const repaired = repair === null ? null : repairLangChainMessages(run, messages, repair);
    return guardModelCall(run, repaired === null ? request : { ...request, messages: repaired }, handler, settings);
  }

  function wrapToolCall(request: ToolCallRequest, handler: (request: never) => unknown): Promise<unknown> {
    const run = registry.get(scopeOf(request.state, request.runtime));
    return guardToolCall(run, {
      call: request.toolCall,
      signal: request.runtime?.signal,
      execute: async (args) => handler({ ...request, toolCall: { ...request.toolCall, args } } as never),
    });
  }

  const middleware = {
    [MIDDLEWARE_BRAND]: true,
    name: options.name ?? 'HyphaeMiddleware',
    pipeline,
    wrapModelCall,
    wrapToolCall,
  };
  return middleware;
}
