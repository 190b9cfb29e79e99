/**
 * Which guard run a Mastra agent run's calls belong to. Mastra hands the run's `RequestContext`
 * to every processor and tool of the run; its values may name the thread and run, and otherwise
 * the `RequestContext` object itself is the run.
 */
import { randomUUID } from 'node:crypto';
import { InvalidOptionError } from '../../errors.js';
import { type GuardPipeline, toGuardPipeline } from '../pipeline.js';
import type { GuardRun, GuardRunOptions } from '../shared/run-types.js';
import type { MastraGuards, MastraRequestContextLike, MastraRunScope, MastraScopeOptions } from './types.js';

/** The pipeline itself, or one built from options. */
export function toPipeline(guards: MastraGuards): GuardPipeline {
  return toGuardPipeline(guards);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function isRequestContext(value: unknown): value is MastraRequestContextLike & object {
  return typeof value === 'object' && value !== null && typeof (value as { get?: unknown }).get === 'function';
}

/** The default scope: the `threadId` and `runId` strings of the request context. */
function defaultScope(requestContext: MastraRequestContextLike | undefined): MastraRunScope | undefined {
  if (requestContext === undefined) return undefined;
  return { threadId: text(requestContext.get('threadId')), runId: text(requestContext.get('runId')) };
}

function scopeOf(requestContext: MastraRequestContextLike | undefined, options: MastraScopeOptions): MastraRunScope {
  const scope = (options.scope ?? defaultScope)(requestContext) ?? {};
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

/** Run ids made up for runs whose request context names none, one per `RequestContext`. */
const madeUpRunIds = new WeakMap<object, string>();

/** The live runs of one pipeline, found from a run's `RequestContext`. */
export interface MastraRunRegistry {
  runFor(requestContext: unknown, options: MastraScopeOptions): GuardRun;
}

const registries = new WeakMap<GuardPipeline, MastraRunRegistry>();

/**
 * The registry of `pipeline`, shared by its tool wrappers and processors so they see one run. A
 * run ends when no `RequestContext` using it is left: every way a Mastra run ends (an answer, the
 * step cap, a tripwire, an error) drops its request context.
 */
export function mastraRunRegistry(pipeline: GuardPipeline): MastraRunRegistry {
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
  const registry: MastraRunRegistry = {
    runFor(requestContext, options) {
      const key = isRequestContext(requestContext) ? requestContext : undefined;
      const scope = scopeOf(key, options);
      let runId = scope.runId;
      if (runId === undefined) {
        if (key === undefined) {
          throw new InvalidOptionError(
            'requestContext',
            'A Mastra call came without a request context to find its run',
          );
        }
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
