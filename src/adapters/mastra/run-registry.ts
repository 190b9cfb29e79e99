/**
 * Which guard run a Mastra agent run's calls belong to. Mastra hands the run's `RequestContext`
 * to every processor and tool of the run; its values may name the thread and run, and otherwise
 * the `RequestContext` object itself is the run.
 */
import { InvalidOptionError } from '../../errors.js';
import { type GuardPipeline, toGuardPipeline } from '../pipeline.js';
import { checkedScope, objectRuns, scopeText } from '../shared/object-runs.js';
import type { GuardRun } from '../shared/run-types.js';
import type { MastraGuards, MastraRequestContextLike, MastraRunScope, MastraScopeOptions } from './types.js';

/** The pipeline itself, or one built from options. */
export function toPipeline(guards: MastraGuards): GuardPipeline {
  return toGuardPipeline(guards);
}

function isRequestContext(value: unknown): value is MastraRequestContextLike & object {
  return typeof value === 'object' && value !== null && typeof (value as { get?: unknown }).get === 'function';
}

/** The default scope: the `threadId` and `runId` strings of the request context. */
function defaultScope(requestContext: MastraRequestContextLike | undefined): MastraRunScope | undefined {
  if (requestContext === undefined) return undefined;
  return { threadId: scopeText(requestContext.get('threadId')), runId: scopeText(requestContext.get('runId')) };
}

/** The live runs of one pipeline, found from a run's `RequestContext`. */
export interface MastraRunRegistry {
  runFor(requestContext: unknown, options: MastraScopeOptions): GuardRun;
}

/**
 * The registry of `pipeline`, shared by its tool wrappers and processors so they see one run. A
 * run ends when no `RequestContext` using it is left: every way a Mastra run ends (an answer, the
 * step cap, a stop, an error) drops its request context.
 */
export function mastraRunRegistry(pipeline: GuardPipeline): MastraRunRegistry {
  const runs = objectRuns(pipeline, 'mastra');
  return {
    runFor(requestContext, options) {
      const key = isRequestContext(requestContext) ? requestContext : undefined;
      const scope = checkedScope((options.scope ?? defaultScope)(key) ?? {});
      return runs.runFor(
        key,
        scope,
        () => new InvalidOptionError('requestContext', 'A Mastra call came without a request context to find its run'),
      );
    },
  };
}
