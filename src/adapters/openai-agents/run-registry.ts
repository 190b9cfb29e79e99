/**
 * Which guard run an agent run's calls belong to. The SDK gives tools and guardrails the run's
 * `RunContext`; its `context` value may name the thread and run, and otherwise the `RunContext`
 * object itself is the run (a `RunState` resumed in the same process keeps it).
 */
import { randomUUID } from 'node:crypto';
import { InvalidOptionError } from '../../errors.js';
import { type GuardPipeline, toGuardPipeline } from '../pipeline.js';
import type { GuardRun, GuardRunOptions } from '../shared/run-types.js';
import type { AgentGuards, AgentRunScope, AgentScopeOptions } from './types.js';

/** The pipeline itself, or one built from options. */
export function toPipeline(guards: AgentGuards): GuardPipeline {
  return toGuardPipeline(guards);
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The default scope: `threadId` and `runId` strings of the context value. */
export function defaultScope(context: unknown): AgentRunScope | undefined {
  if (!isRecord(context)) return undefined;
  return { threadId: text(context.threadId), runId: text(context.runId) };
}

/** The scope the options give for a context value (validated). */
export function scopeOf(context: unknown, options: AgentScopeOptions): AgentRunScope {
  const scope = (options.scope ?? defaultScope)(context) ?? {};
  for (const key of ['threadId', 'runId'] as const) {
    const value = scope[key];
    if (value !== undefined && text(value) === undefined) {
      throw new InvalidOptionError(
        'scope',
        `\`scope\` must give a non-empty string \`${key}\`, got \`${String(value)}\``,
      );
    }
  }
  return scope;
}

/** Run ids made up for runs whose context names none, one per `RunContext`. */
const madeUpRunIds = new WeakMap<object, string>();

/** The live runs of one pipeline, found from the SDK's `RunContext`. */
export interface AgentRunRegistry {
  runFor(runContext: unknown, options: AgentScopeOptions): GuardRun;
}

const registries = new WeakMap<GuardPipeline, AgentRunRegistry>();

/**
 * The registry of `pipeline` (shared by its tool wrappers and guardrails, so they see one run).
 * A run ends when no `RunContext` using it is left: the SDK has no end-of-run hook that every exit
 * path (final output, error, abandoned interruption) passes, but each run drops its `RunContext`.
 */
export function agentRunRegistry(pipeline: GuardPipeline): AgentRunRegistry {
  const existing = registries.get(pipeline);
  if (existing !== undefined) return existing;
  const tracked = new WeakMap<object, GuardRun>();
  const users = new Map<GuardRun, number>();
  const finalizer = new FinalizationRegistry<GuardRun>((run) => {
    const left = (users.get(run) ?? 1) - 1;
    if (left > 0) {
      users.set(run, left);
      return;
    }
    users.delete(run);
    run.end();
  });
  const registry: AgentRunRegistry = {
    runFor(runContext, options) {
      const key = isRecord(runContext) ? runContext : undefined;
      const scope = scopeOf(key?.context, options);
      let runId = scope.runId;
      if (runId === undefined) {
        if (key === undefined) throw new InvalidOptionError('runContext', 'A tool call came without a run context');
        runId = madeUpRunIds.get(key);
        if (runId === undefined) {
          runId = `run_${randomUUID()}`;
          madeUpRunIds.set(key, runId);
        }
      }
      const runOptions: GuardRunOptions =
        scope.threadId === undefined ? { runId } : { threadId: scope.threadId, runId };
      const run = pipeline.forRun(runOptions);
      if (key !== undefined && tracked.get(key) !== run) {
        tracked.set(key, run);
        users.set(run, (users.get(run) ?? 0) + 1);
        finalizer.register(key, run);
      }
      return run;
    },
  };
  registries.set(pipeline, registry);
  return registry;
}
