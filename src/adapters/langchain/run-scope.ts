/**
 * Which guard run a LangGraph step belongs to, and the live runs of one middleware or tool node.
 *
 * The ledger scope must survive LangGraph's own resume path: after an interrupt or a failure,
 * `invoke(new Command({ resume }))` or `invoke(null)` on the same thread re-runs the tool step from
 * the checkpoint, with the same AI message and call ids. The default run id is the id of the last
 * human message, which the checkpoint keeps, so the redispatched call lands on the same transition.
 */
import { InvalidOptionError } from '../../errors.js';
import { type GuardPipeline, toGuardPipeline } from '../pipeline.js';
import type { GuardRun, GuardRunOptions } from '../shared/run-types.js';
import { isObject, lastMessageId, messagesOf, messageType } from './messages.js';
import type { LangChainGuards, LangChainRunContext, LangChainScopeOptions } from './types.js';

/** The pipeline itself, or one built from options. */
export function toPipeline(guards: LangChainGuards): GuardPipeline {
  return toGuardPipeline(guards);
}

/** The context a run id is derived from, out of a graph state and a LangGraph config/runtime. */
export function runContextOf(state: unknown, config: unknown): LangChainRunContext {
  const configurable = isObject(config) && isObject(config.configurable) ? config.configurable : undefined;
  const thread = configurable?.thread_id;
  return {
    threadId: typeof thread === 'string' && thread !== '' ? thread : undefined,
    messages: messagesOf(state),
    configurable,
  };
}

/** The run options of a step: the thread, and a run id that a resume of the same run keeps. */
export function runOptionsOf(context: LangChainRunContext, options: LangChainScopeOptions): GuardRunOptions {
  const custom = options.runId?.(context);
  if (custom !== undefined && (typeof custom !== 'string' || custom === '')) {
    throw new InvalidOptionError('runId', `\`runId\` must return a non-empty string, got \`${String(custom)}\``);
  }
  const runId =
    custom ??
    lastMessageId(context.messages, 'human') ??
    // A graph whose input is not a human message: its first message still fixes the run.
    (context.messages.length > 0 ? firstMessageId(context.messages) : undefined) ??
    context.threadId ??
    'default';
  return context.threadId === undefined ? { runId } : { threadId: context.threadId, runId };
}

function firstMessageId(messages: readonly unknown[]): string | undefined {
  const first = messages[0];
  const id = isObject(first) ? first.id : undefined;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** The live runs of one middleware or tool node. */
export interface RunRegistry {
  /** The run of `options`; a new run on a thread ends that thread's previous one. */
  get(options: GuardRunOptions): GuardRun;
  /** End the run of `options` if it is live (its fuse counters are gone; the ledger keeps its records). */
  end(options: GuardRunOptions): void;
}

const registries = new WeakMap<GuardPipeline, RunRegistry>();

/**
 * The one registry of `pipeline`: the middleware, a guarded model node and a guarded tool node
 * built on the same pipeline share it, so they see the same live run without a run id passed around.
 */
export function registryOf(pipeline: GuardPipeline): RunRegistry {
  let registry = registries.get(pipeline);
  if (registry === undefined) {
    registry = createRunRegistry(pipeline);
    registries.set(pipeline, registry);
  }
  return registry;
}

/**
 * True when a model step opens an invocation: its state ends with the human message it was
 * invoked with. A resume (after an interrupt or a tool step) ends with an AI or tool message.
 */
export function opensInvocation(messages: readonly unknown[]): boolean {
  return messageType(messages.at(-1)) === 'human';
}

/** Threadless runs kept live at most; the oldest is ended first. */
const MAX_THREADLESS_RUNS = 1024;

/**
 * Keep at most one live run per thread: a new run id on a thread means the previous run is over
 * (however it exited), so its fuse state is dropped instead of leaking or leaking into the next.
 * Runs without a thread (no checkpointer) may overlap, so they are kept by run id, boundedly.
 */
export function createRunRegistry(pipeline: GuardPipeline): RunRegistry {
  const live = new Map<string, { readonly runId: string; readonly run: GuardRun }>();
  let threadless = 0;
  const keyOf = (options: GuardRunOptions): string =>
    options.threadId === undefined ? `run:${options.runId}` : `thread:${options.threadId}`;
  const drop = (key: string): void => {
    const current = live.get(key);
    if (current === undefined) return;
    live.delete(key);
    if (key.startsWith('run:')) threadless--;
    current.run.end();
  };
  return {
    get(options) {
      const key = keyOf(options);
      const current = live.get(key);
      if (current !== undefined && current.runId === options.runId) {
        // Another middleware or tool node on the same pipeline may have ended the run (its
        // invocation of the same run finished first): take the pipeline's live run, not the ended one.
        const run = pipeline.forRun(options);
        if (run !== current.run) live.set(key, { runId: options.runId, run });
        return run;
      }
      drop(key);
      if (options.threadId === undefined) {
        if (threadless >= MAX_THREADLESS_RUNS) {
          for (const candidate of live.keys()) {
            if (!candidate.startsWith('run:')) continue;
            drop(candidate);
            break;
          }
        }
        threadless++;
      }
      const run = pipeline.forRun(options);
      live.set(key, { runId: options.runId, run });
      return run;
    },
    end(options) {
      const key = keyOf(options);
      if (live.get(key)?.runId === options.runId) drop(key);
    },
  };
}
