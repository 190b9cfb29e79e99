/**
 * `guardToolNode` and `guardTools`: the guard pipeline for custom LangGraph graphs, at the tools'
 * own execution boundary (`tool.invoke`), so any `ToolNode` runs them guarded.
 */
import { Command, END } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { InvalidOptionError } from '../../errors.js';
import { checkArguments, checkOptions } from '../../invalid-argument.js';
import { guardDirectCall, guardToolCall, type LangChainCall } from './guard-tool-call.js';
import { isObject } from './messages.js';
import { type RunRegistry, registryOf, runContextOf, runOptionsOf, toPipeline } from './run-scope.js';
import { stopAnswer } from './stop.js';
import type {
  GuardedToolNodeFunction,
  GuardToolNodeOptions,
  GuardToolNodeRouting,
  LangChainGuards,
  LangChainToolCall,
  LangChainToolLike,
  LangGraphToolNodeLike,
} from './types.js';

/** What a `ToolNode` passes as the second argument of `tool.invoke`. */
interface ToolRuntimeLike {
  readonly configurable?: unknown;
  readonly state?: unknown;
  readonly toolCallId?: unknown;
  readonly signal?: AbortSignal | undefined;
}

function isToolCall(input: unknown): input is LangChainToolCall & Record<string, unknown> {
  return isObject(input) && (input.type === 'tool_call' || ('id' in input && 'name' in input && 'args' in input));
}

function guardedTool<T extends LangChainToolLike>(tool: T, registry: RunRegistry, options: GuardToolNodeOptions): T {
  const invoke = tool.invoke as (input: unknown, config?: unknown) => Promise<unknown>;
  async function guardedInvoke(input: unknown, config?: unknown): Promise<unknown> {
    const runtime = (isObject(config) ? config : {}) as ToolRuntimeLike;
    const run = registry.get(runOptionsOf(runContextOf(runtime.state, runtime), options));
    if (isToolCall(input)) {
      const request: LangChainCall = {
        call: { id: input.id, name: tool.name, args: input.args },
        signal: runtime.signal,
        execute: (args) => invoke.call(tool, { ...input, args }, config),
      };
      return guardToolCall(run, request);
    }
    const id = typeof runtime.toolCallId === 'string' && runtime.toolCallId !== '' ? runtime.toolCallId : undefined;
    return guardDirectCall(run, {
      call: { id, name: tool.name, args: input },
      signal: runtime.signal,
      execute: (args) => invoke.call(tool, args, config),
    });
  }
  // The tool stays the prototype: its name, schema and class (`instanceof`) are unchanged.
  return Object.create(tool, {
    invoke: { value: guardedInvoke, writable: true, configurable: true, enumerable: false },
  }) as T;
}

/**
 * Guard LangChain tools: each `invoke` runs through the pipeline. Called with a tool call (as a
 * `ToolNode` does) it answers with a `ToolMessage` carrying the call's id — an error message
 * saying the call did NOT happen when it is blocked; called with plain arguments it returns the
 * tool's value or throws `ToolCallRefusedError`. The originals are not changed.
 *
 * @example
 * import { ToolNode } from '@langchain/langgraph/prebuilt';
 * const toolNode = new ToolNode(guardTools([sendPayment, lookupOrder], guards));
 */
export function guardTools<T extends LangChainToolLike>(
  tools: readonly T[],
  guards: LangChainGuards,
  options: GuardToolNodeOptions = {},
): T[] {
  const registry = registryOf(toPipeline(guards));
  return tools.map((tool) => guardedTool(tool, registry, options));
}

/**
 * Guard a LangGraph `ToolNode`: a new node of the same class whose tools run through the
 * pipeline (the original is not changed). Given a list of tools instead, a node function for
 * `addNode` that runs them in a prebuilt `ToolNode`.
 *
 * The ledger scope is the thread (`configurable.thread_id`) and a run id that survives LangGraph's
 * resume path, so a tool step re-run after an interrupt or a failure returns the recorded result
 * instead of running the body again.
 *
 * @example
 * import { MemorySaver, MessagesAnnotation, StateGraph } from '@langchain/langgraph';
 * import { ToolNode } from '@langchain/langgraph/prebuilt';
 * import { guardToolNode } from 'hyphae/langchain';
 *
 * const graph = new StateGraph(MessagesAnnotation)
 *   .addNode('agent', callModel)
 *   .addNode('tools', guardToolNode(new ToolNode([sendPayment]), { ledger }))
 *   .compile({ checkpointer: new MemorySaver() });
 */
export function guardToolNode(
  target: LangGraphToolNodeLike | readonly LangChainToolLike[],
  guards: LangChainGuards,
  options: GuardToolNodeRouting,
): GuardedToolNodeFunction;
export function guardToolNode<N extends LangGraphToolNodeLike>(
  toolNode: N,
  guards: LangChainGuards,
  options?: GuardToolNodeOptions,
): N;
export function guardToolNode(
  tools: readonly LangChainToolLike[],
  guards: LangChainGuards,
  options?: GuardToolNodeOptions,
): GuardedToolNodeFunction;
export function guardToolNode(
  target: LangGraphToolNodeLike | readonly LangChainToolLike[],
  guards: LangChainGuards,
  options: GuardToolNodeOptions | GuardToolNodeRouting = {},
): LangGraphToolNodeLike | GuardedToolNodeFunction {
  if (!Array.isArray(target)) checkOptions('guardToolNode', target, false, 'toolNode');
  checkArguments('guardToolNode', { guards, options });
  if ('onBlock' in options) return routingNode(target, guards, options);
  if (Array.isArray(target)) {
    const node = new ToolNode(guardTools(target as readonly LangChainToolLike[], guards, options) as never);
    return async function guardedToolNode(state: unknown, config?: unknown): Promise<unknown> {
      return node.invoke(state as never, config as never);
    };
  }
  const source = target as LangGraphToolNodeLike;
  const NodeClass = source.constructor as new (tools: unknown[], options: unknown) => LangGraphToolNodeLike;
  // A node that keeps its constructor options (LangChain's own `ToolNode`) gives them all back.
  const own = (source as { readonly options?: unknown }).options;
  const nodeOptions = {
    ...(isObject(own) ? own : {}),
    ...Object.fromEntries(
      Object.entries({ name: source.name, tags: source.tags, handleToolErrors: source.handleToolErrors }).filter(
        ([, value]) => value !== undefined,
      ),
    ),
  };
  return new NodeClass(guardTools(source.tools, guards, options), nodeOptions);
}

function nodeName(option: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') {
    throw new InvalidOptionError(option, `\`${option}\` must name a node (or \`__end__\`), got \`${String(value)}\``);
  }
  return value;
}

/**
 * The tool step as a routing node: the guarded tools run in a `ToolNode`, then a `Command` goes to
 * `next`, or to `onBlock` when the step left the run stopped (with the stop answer when that is the end).
 */
function routingNode(
  target: LangGraphToolNodeLike | readonly LangChainToolLike[],
  guards: LangChainGuards,
  options: GuardToolNodeRouting,
): GuardedToolNodeFunction {
  const onBlock = nodeName('onBlock', options.onBlock);
  const next = nodeName('next', options.next);
  const pipeline = toPipeline(guards);
  const registry = registryOf(pipeline);
  const { onBlock: _block, next: _next, stopMessage, ...scope } = options;
  const node = (Array.isArray(target)
    ? new ToolNode(guardTools(target as readonly LangChainToolLike[], pipeline, scope) as never)
    : guardToolNode(target as LangGraphToolNodeLike, pipeline, scope)) as unknown as {
    invoke(state: unknown, config?: unknown): Promise<unknown>;
  };
  return async function guardedRoutingToolNode(state: unknown, config?: unknown): Promise<unknown> {
    const output = await node.invoke(state, config);
    // A tool that answered with its own `Command` routes itself.
    if (!isObject(output) || !Array.isArray(output.messages)) return output;
    const answers = output.messages;
    const runScope = runOptionsOf(runContextOf(state, config), scope);
    const stoppedBy = registry.get(runScope).stopped;
    if (stoppedBy === null) return new Command({ goto: next, update: { messages: answers } });
    if (onBlock !== END) return new Command({ goto: onBlock, update: { messages: answers } });
    registry.end(runScope);
    const final = stopAnswer(stoppedBy, (stopMessage ?? ((refusal) => refusal.message))(stoppedBy));
    return new Command({ goto: END, update: { messages: [...answers, final] } });
  };
}
