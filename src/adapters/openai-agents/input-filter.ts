/**
 * `hyphaeCallModelInputFilter`: transcript repair right before each model call of an
 * `@openai/agents` run, so a function call without its result (a crash, an abandoned approval, a
 * trimmed session) or a result without its call never reaches the provider.
 */
import { repairTranscript } from '../../context/transcript/repair.js';
import { checkArguments } from '../../invalid-argument.js';
import type { GuardPipeline } from '../pipeline.js';
import { readItems, writeItems } from './input-items.js';
import { scopeOf, toPipeline } from './run-registry.js';
import type { AgentCallModelInputFilter, AgentGuards, AgentInputFilterOptions } from './types.js';

/**
 * A `callModelInputFilter` that repairs the model input: an unanswered function call gets a
 * result saying it was NOT executed, orphan and duplicate results are dropped, duplicate call ids
 * are resolved. A well-formed input is returned as it is (the same item objects). With `guards`,
 * repairs are reported through the pipeline's `onEvent` for the run the context names.
 *
 * @example
 * import { run } from '@openai/agents';
 * import { hyphaeCallModelInputFilter } from 'hyphae/openai-agents';
 *
 * await run(agent, history, { callModelInputFilter: hyphaeCallModelInputFilter(pipeline) });
 */
export function hyphaeCallModelInputFilter(
  guards?: AgentGuards,
  options: AgentInputFilterOptions = {},
): AgentCallModelInputFilter {
  checkArguments('hyphaeCallModelInputFilter', { guards, options }, ['guards', 'options']);
  const pipeline: GuardPipeline | undefined = guards === undefined ? undefined : toPipeline(guards);
  const repair = { ...options.repair, format: 'openai' as const };
  return function repairModelInput({ modelData, context }) {
    const view = readItems(modelData.input);
    const scope = pipeline === undefined ? undefined : scopeOf(context, options);
    const run =
      scope?.runId === undefined
        ? undefined
        : pipeline?.forRun(
            scope.threadId === undefined ? { runId: scope.runId } : { threadId: scope.threadId, runId: scope.runId },
          );
    const repaired =
      run === undefined ? repairTranscript(view.plain, repair).messages : run.repairTranscript(view.plain, repair);
    if (repaired.length === view.plain.length && repaired.every((message, index) => message === view.plain[index])) {
      return modelData;
    }
    return { ...modelData, input: writeItems(view, repaired) as typeof modelData.input };
  };
}
