/**
 * Guard runs found from the object a framework hands every call of one run (the OpenAI Agents
 * SDK's `RunContext`, Mastra's `RequestContext`): the run its scope names, or one made up per
 * object when it names none. A run ends when no object using it is left, since these frameworks
 * have no end-of-run hook that every exit path passes, but every run drops its object.
 */
import { randomUUID } from 'node:crypto';
import { InvalidOptionError } from '../../errors.js';
import type { GuardPipeline } from '../pipeline.js';
import type { GuardRun, GuardRunOptions } from './run-types.js';

/** The thread and run a framework's run object names. */
export interface ObjectRunScope {
  readonly threadId?: string | undefined;
  readonly runId?: string | undefined;
}

/** A non-empty string, or undefined. */
export function scopeText(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** `scope`, refused with {@link InvalidOptionError} when an id it gives is not a non-empty string. */
export function checkedScope<S extends ObjectRunScope>(scope: S): S {
  for (const key of ['threadId', 'runId'] as const) {
    const value = scope[key];
    if (value !== undefined && scopeText(value) === undefined) {
      throw new InvalidOptionError(
        'scope',
        `\`scope\` must give a non-empty string \`${key}\`, got \`${String(value)}\``,
      );
    }
  }
  return scope;
}

/** The live runs of one pipeline for one framework, found from its run objects. */
export interface ObjectRuns {
  /**
   * The run of `scope`, or of the object `key` when the scope names no run (`missing` is thrown
   * when there is neither); `key` keeps the run alive while the framework holds it.
   */
  runFor(key: object | undefined, scope: ObjectRunScope, missing: () => Error): GuardRun;
}

/** Run ids made up for runs whose object names none, one per object. */
const madeUpRunIds = new WeakMap<object, string>();

const registries = new WeakMap<GuardPipeline, Map<string, ObjectRuns>>();

/** The runs of `pipeline` for the adapter `family`, shared by all its wrappers so they see one run. */
export function objectRuns(pipeline: GuardPipeline, family: string): ObjectRuns {
  const families = registries.get(pipeline) ?? new Map<string, ObjectRuns>();
  registries.set(pipeline, families);
  const existing = families.get(family);
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
  const runs: ObjectRuns = {
    runFor(key, scope, missing) {
      let runId = scope.runId;
      if (runId === undefined) {
        if (key === undefined) throw missing();
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
  families.set(family, runs);
  return runs;
}
