/**
 * `guardModelNode`: the model step of a custom LangGraph graph under the guards — a stopped run
 * ends, the prompt is repaired, the budget pre-flight runs and the real usage is booked. It shares
 * the live run with `guardToolNode` on the same pipeline: both derive the run from the graph state
 * and the thread, so no run id is passed between them.
 */
import { GuardError, InvalidOptionError } from '../../errors.js';
import type { GuardRun } from '../shared/run-types.js';
import { isObject, messagesOf, messageType, toolCallsOf } from './messages.js';
import { opensInvocation, registryOf, runContextOf, runOptionsOf, toPipeline } from './run-scope.js';
import { stopAnswer } from './stop.js';
import { repairLangChainMessages, toPlainMessage } from './transcript.js';
import type { GuardModelNodeOptions, LangChainGuards } from './types.js';

/** Never runs a body: the call was answered before and is only being counted. */
async function notDispatched(): Promise<never> {
  throw new GuardError('not_dispatched', 'A call the graph answered already is not run again');
}

/**
 * The calls of the update's AI messages whose ids the state already answers: LangGraph's
 * `ToolNode` does not run them again, so they go through the pipeline here (answered from the
 * ledger, counted by the loop fuse), and a model re-sending one call every turn is stopped.
 */
async function recheckResentCalls(run: GuardRun, messages: readonly unknown[], update: unknown): Promise<void> {
  const answered = new Set<string>();
  for (const message of messages) {
    const id = messageType(message) === 'tool' && isObject(message) ? message.tool_call_id : undefined;
    if (typeof id === 'string') answered.add(id);
  }
  const sent = isObject(update) ? update.messages : undefined;
  for (const message of Array.isArray(sent) ? sent : sent === undefined ? [] : [sent]) {
    for (const call of toolCallsOf(message)) {
      if (call.id === undefined || !answered.has(call.id) || run.stopped !== null) continue;
      await run.executeToolCall({ id: call.id, name: call.name, args: call.args ?? {} }, notDispatched);
    }
  }
}

/** A graph node: the state (and LangGraph's config) in, a state update out. */
type NodeFunction = (state: never, config?: never) => unknown;

function usageOf(update: unknown): unknown {
  const messages = isObject(update) ? update.messages : undefined;
  const list = Array.isArray(messages) ? messages : messages === undefined ? [] : [messages];
  let input = 0;
  let output = 0;
  let found = false;
  for (const message of list) {
    if (messageType(message) !== 'ai' || !isObject(message) || !isObject(message.usage_metadata)) continue;
    const usage = message.usage_metadata;
    if (typeof usage.input_tokens === 'number') input += usage.input_tokens;
    if (typeof usage.output_tokens === 'number') output += usage.output_tokens;
    found = true;
  }
  return found ? { input_tokens: input, output_tokens: output } : undefined;
}

/**
 * Guard the model node of a LangGraph graph in one line: `addNode('agent', guardModelNode(callModel,
 * guards))`. Before the node runs: a run the guards stopped (a loop, a used-up budget, any terminal
 * refusal of its tool calls) ends with a final `AIMessage` — the refusal's note, the verdict in
 * `response_metadata.hyphae`, no tool calls, so `toolsCondition` routes to the end — and the node
 * is not called; the node sees the messages repaired (orphan results dropped, unanswered calls
 * answered); the budget pre-flight prices the prompt. After it, the `usage_metadata` of the AI
 * messages it returns is booked. Give `guardToolNode` the same pipeline object: the two share the run.
 *
 * @example
 * import { MessagesAnnotation, StateGraph } from '@langchain/langgraph';
 * import { ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt';
 * import { createGuardPipeline, guardModelNode, guardToolNode } from 'hyphae/langchain';
 *
 * const guards = createGuardPipeline({ ledger, fuses });
 * const callModel = async (state: typeof MessagesAnnotation.State) => ({
 *   messages: [await model.invoke(state.messages)],
 * });
 * const graph = new StateGraph(MessagesAnnotation)
 *   .addNode('agent', guardModelNode(callModel, guards))
 *   .addNode('tools', guardToolNode(new ToolNode(tools), guards))
 *   .addEdge('__start__', 'agent')
 *   .addConditionalEdges('agent', toolsCondition)
 *   .addEdge('tools', 'agent')
 *   .compile();
 */
export function guardModelNode<N extends NodeFunction>(
  node: N,
  guards: LangChainGuards,
  options: GuardModelNodeOptions = {},
): N {
  if (typeof node !== 'function') throw new InvalidOptionError('node', '`guardModelNode` wraps a node function');
  const registry = registryOf(toPipeline(guards));
  const stopMessage = options.stopMessage ?? ((refusal) => refusal.message);
  const repair =
    options.repairTranscript === false
      ? null
      : { ...(options.repairTranscript === true ? {} : options.repairTranscript) };
  const call = node as unknown as (state: unknown, config?: unknown) => unknown;

  async function guardedModelNode(state: unknown, config?: unknown): Promise<unknown> {
    const scope = runOptionsOf(runContextOf(state, config), options);
    const messages = messagesOf(state);
    if (opensInvocation(messages)) registry.end(scope);
    const run = registry.get(scope);
    const stoppedBy = run.stopped;
    if (stoppedBy !== null) {
      registry.end(scope);
      return { messages: [stopAnswer(stoppedBy, stopMessage(stoppedBy))] };
    }
    const repaired = repair === null ? null : repairLangChainMessages(run, messages, repair);
    const prompt = repaired ?? messages;
    const gate = run.checkModelCall({
      model: options.model ?? 'unknown',
      messages: prompt.map(toPlainMessage),
      tools: options.tools,
      maxOutputTokens: options.maxOutputTokens,
    });
    if (gate.status === 'refused') return { messages: [stopAnswer(gate.refusal, stopMessage(gate.refusal))] };
    let update: unknown;
    try {
      update = await call(repaired === null ? state : { ...(state as object), messages: repaired }, config);
    } catch (error) {
      run.releaseModelCall(gate.reservation);
      throw error;
    }
    run.recordModelUsage(usageOf(update), gate.reservation);
    await recheckResentCalls(run, messages, update);
    return update;
  }
  return guardedModelNode as unknown as N;
}
