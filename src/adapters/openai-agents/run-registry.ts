/**
 * Which guard run an agent run's calls belong to. The SDK gives tools and guardrails the run's
 * `RunContext`; its `context` value may name the thread and run, and otherwise the `RunContext`
 * object itself is the run (a `RunState` resumed in the same process keeps it).
 */
import { InvalidOptionError } from '../../errors.js';
import { type GuardPipeline, toGuardPipeline } from '../pipeline.js';
import { checkedScope, objectRuns, scopeText } from '../shared/object-runs.js';
import type { GuardRun } from '../shared/run-types.js';
import type { AgentGuards, AgentRunScope, AgentScopeOptions } from './types.js';

/** The pipeline itself, or one built from options. */
export function toPipeline(guards: AgentGuards): GuardPipeline {
  return toGuardPipeline(guards);
}

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null;
}

/** The default scope: `threadId` and `runId` strings of the context value. */
export function defaultScope(context: unknown): AgentRunScope | undefined {
  if (!isRecord(context)) return undefined;
  return { threadId: scopeText(context.threadId), runId: scopeText(context.runId) };
}

/** The scope the options give for a context value (validated). */
export function scopeOf(context: unknown, options: AgentScopeOptions): AgentRunScope {
  return checkedScope((options.scope ?? defaultScope)(context) ?? {});
}

/** The live runs of one pipeline, found from the SDK's `RunContext`. */
export interface AgentRunRegistry {
  runFor(runContext: unknown, options: AgentScopeOptions): GuardRun;
}

/**
 * The registry of `pipeline` (shared by its tool wrappers and guardrails, so they see one run).
 * A run ends when no `RunContext` using it is left: the SDK has no end-of-run hook that every exit
 * path (final output, error, abandoned interruption) passes, but each run drops its `RunContext`.
 */
export function agentRunRegistry(pipeline: GuardPipeline): AgentRunRegistry {
  const runs = objectRuns(pipeline, 'openai-agents');
  return {
    runFor(runContext, options) {
      const key = isRecord(runContext) ? runContext : undefined;
      return runs.runFor(
        key,
        scopeOf(key?.context, options),
        () => new InvalidOptionError('runContext', 'A tool call came without a run context'),
      );
    },
  };
}
