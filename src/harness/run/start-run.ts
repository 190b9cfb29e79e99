/**
 * Setting up one run — checked input, trusted design, per-run fuses, evidence and tools, the
 * pinned messages, the time limit — and seeing it to its end.
 */
import type { Clock } from '../../core/clock.js';
import type { FuseBox } from '../../fuses/fuse-box.js';
import type { ModelContextPolicy } from '../context-policy/context-policy.js';
import { DesignValidationError } from '../design/design-errors.js';
import type { CompiledDesignSpec } from '../design/design-spec.js';
import { HarnessInputError, RunLimit, RunLimitExceeded } from '../errors.js';
import { createEmitter } from '../events.js';
import type { JsonValue } from '../json-patch/apply-json-patch.js';
import type { ResolvedLimits } from '../limits.js';
import type { DesignRenderer, MainModel, ModelMessage, VisionModel } from '../models/types.js';
import { type CompiledTool, compileTool, offeredTools } from '../tools/compile-tools.js';
import { createEvidenceStore } from '../tools/evidence-store.js';
import { inspectVisualTool } from '../tools/inspect-visual.js';
import { retrieveEvidenceTool } from '../tools/retrieve-evidence.js';
import type { ToolMiddleware } from '../tools/tool-middleware.js';
import type { CandidatePolicy } from './candidate-policy.js';
import { startDeadline } from './race.js';
import { deepFreeze, type RunContext } from './run-context.js';
import { checkRunInput, type PatchRunOptions } from './run-input.js';
import { createBooks, type RunResult, runLoop } from './run-loop.js';
import { historyMessages, runPrompt } from './run-prompt.js';

/** What a harness hands each run. */
export interface HarnessSetup {
  readonly limits: ResolvedLimits;
  readonly spec: CompiledDesignSpec;
  readonly mainModel: MainModel;
  readonly visionModel: VisionModel | undefined;
  readonly renderer: DesignRenderer | undefined;
  readonly tools: readonly CompiledTool[];
  readonly retrieve: CompiledTool;
  readonly middleware: readonly ToolMiddleware[];
  readonly policies: readonly CandidatePolicy[];
  readonly contextPolicy: ModelContextPolicy;
  readonly system: string;
  readonly clock: Clock;
  fuseBox(): FuseBox;
  newRunId(): string;
}

async function trustedDesign(setup: HarnessSetup, stored: unknown): Promise<JsonValue> {
  let design: JsonValue;
  try {
    design = await setup.spec.loadTrusted(stored);
  } catch (error) {
    if (!(error instanceof DesignValidationError)) throw error;
    throw new HarnessInputError('design', error.message, { cause: error });
  }
  const bytes = Buffer.byteLength(JSON.stringify(design), 'utf8');
  if (bytes > setup.limits.patch.maxDocumentBytes) {
    throw new HarnessInputError(
      'design',
      `${bytes} bytes is over the ${setup.limits.patch.maxDocumentBytes}-byte document limit`,
    );
  }
  return deepFreeze(design);
}

/** The tools of this run, by name: those its capabilities allow, then the built-ins bound to it. */
function toolsOf(setup: HarnessSetup, run: RunContext): Map<string, CompiledTool> {
  const offered = offeredTools(setup.tools, new Set(run.capabilities));
  const builtIns: CompiledTool[] = [];
  if (offered.length > 0)
    builtIns.push({ ...setup.retrieve, tool: retrieveEvidenceTool(run.evidence, run.limits) as CompiledTool['tool'] });
  if (setup.visionModel !== undefined) {
    const vision = inspectVisualTool(run, setup.visionModel, setup.renderer) as CompiledTool['tool'];
    builtIns.push(compileTool(vision, run.limits, vision.name));
  }
  const all = [...offered, ...builtIns].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return new Map(all.map((tool) => [tool.name, tool]));
}

/** Run once; see `PatchHarness.run`. */
export async function startRun(setup: HarnessSetup, options: PatchRunOptions): Promise<RunResult> {
  const { limits, clock } = setup;
  const input = checkRunInput(options, limits);
  const history = historyMessages(options.history, limits);
  const runId = options.runId ?? setup.newRunId();
  const signal = options.signal;
  if (signal?.aborted) throw signal.reason;
  const started = clock.now();
  const emit = createEmitter(runId, () => clock.now(), options.onEvent);
  const deadline = startDeadline(
    clock,
    limits.runTimeoutMs,
    () =>
      new RunLimitExceeded({
        limit: RunLimit.runTimeoutMs,
        value: limits.runTimeoutMs,
        runId,
        message: `Run \`${runId}\` stopped: it reached its ${limits.runTimeoutMs} ms time limit`,
      }),
  );
  const fuses = setup.fuseBox().forRun(runId);
  const books = createBooks();
  emit({ type: 'run_started' });
  try {
    const design = await trustedDesign(setup, options.design);
    const run: RunContext = {
      runId,
      limits,
      clock,
      signal,
      runTimeout: deadline.signal,
      design,
      canEdit: input.canEdit,
      capabilities: input.capabilities,
      inputArtifacts: input.inputArtifacts,
      middleware: setup.middleware,
      fuses,
      evidence: createEvidenceStore(),
      callCounts: new Map(),
      toolResultBytes: 0,
      emit,
      recordModelCall: books.record,
    };
    const offered = toolsOf(setup, run);
    const transcript: ModelMessage[] = [
      { role: 'system', content: setup.system },
      ...history,
      runPrompt({ ...input, design }),
    ];
    const result = await runLoop(
      run,
      {
        model: setup.mainModel,
        tools: [...offered.values()].map((tool) => tool.definition),
        contextPolicy: setup.contextPolicy,
        runPromptIndex: transcript.length - 1,
        offered,
        rules: { spec: setup.spec, policies: setup.policies, request: input.request },
        onStep: options.onStep,
      },
      transcript,
      books,
    );
    emit({ type: 'run_finished', status: 'succeeded', elapsedMs: clock.now() - started });
    return result;
  } catch (error) {
    const aborted = signal?.aborted === true;
    const code = (error as { code?: unknown } | null)?.code;
    emit({
      type: 'run_finished',
      status: aborted ? 'aborted' : 'failed',
      elapsedMs: clock.now() - started,
      ...(typeof code === 'string' ? { errorCode: code } : {}),
    });
    // An abort surfaces as the caller's own reason, whatever the model or tool made of it.
    throw aborted ? signal.reason : error;
  } finally {
    deadline.cancel();
    fuses.end();
  }
}
