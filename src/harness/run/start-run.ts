/**
 * Setting up one run — checked input, trusted design, per-run fuses, evidence and tools, the
 * pinned messages, the time limit — and seeing it to its end.
 */
import type { Clock } from '../../core/clock.js';
import { deepFreeze } from '../../core/deep-freeze.js';
import type { FuseBox } from '../../fuses/fuse-box.js';
import type { AssetProvider } from '../assets/asset-provider.js';
import { createAssetRegistry } from '../assets/asset-registry.js';
import type { ModelContextPolicy } from '../context-policy/context-policy.js';
import { DesignValidationError } from '../design/design-errors.js';
import type { CompiledDesignSpec } from '../design/design-spec.js';
import { HarnessInputError, RunLimit, runStopped } from '../errors.js';
import { createEmitter } from '../events.js';
import type { JsonValue } from '../json-patch/apply-json-patch.js';
import type { ResolvedLimits } from '../limits.js';
import type { MainModel, ModelMessage } from '../models/types.js';
import type { AgentTool, ToolBody } from '../tools/agent-tool.js';
import { commitRenderBody } from '../tools/commit-render.js';
import { type CompiledTool, offeredTools } from '../tools/compile-tools.js';
import { createEvidenceStore } from '../tools/evidence-store.js';
import { inspectAssetBody } from '../tools/inspect-asset.js';
import { inspectVisualBody } from '../tools/inspect-visual.js';
import { renderDesignBody } from '../tools/render-design.js';
import { retrieveEvidenceTool } from '../tools/retrieve-evidence.js';
import { searchAssetsBody } from '../tools/search-assets.js';
import type { ToolMiddleware } from '../tools/tool-middleware.js';
import type { TraceRedactor } from '../traces.js';
import { createRenderStore } from '../visual/render-store.js';
import type { Renderer } from '../visual/renderer.js';
import type { VisionSetup } from '../visual/review-visually.js';
import type { CandidatePolicy } from './candidate-policy.js';
import { createInputArtifactStore } from './input-artifacts.js';
import { startDeadline } from './race.js';
import type { RunContext } from './run-context.js';
import { type CheckedRunInput, checkRunInput, failureModeOf, type PatchRunOptions } from './run-input.js';
import { createBooks, type RunResult, runLoop } from './run-loop.js';
import { historyMessages, runPrompt } from './run-prompt.js';

/** What a harness hands each run. */
export interface HarnessSetup {
  readonly limits: ResolvedLimits;
  readonly spec: CompiledDesignSpec;
  readonly mainModel: MainModel;
  readonly vision: VisionSetup | undefined;
  readonly renderer: Renderer | undefined;
  readonly tools: readonly CompiledTool[];
  /** Built-in tools compiled once (schema and settings); each run swaps in a body bound to it. */
  readonly builtIns: BuiltInTemplates;
  readonly middleware: readonly ToolMiddleware[];
  readonly policies: readonly CandidatePolicy[];
  readonly contextPolicy: ModelContextPolicy;
  readonly system: string;
  readonly clock: Clock;
  readonly traceRedactor: TraceRedactor | undefined;
  fuseBox(): FuseBox;
  newRunId(): string;
}

/** The built-in tools, compiled once per harness. */
export interface BuiltInTemplates {
  readonly retrieve: CompiledTool;
  readonly inspectVisual: CompiledTool | undefined;
  readonly render: CompiledTool | undefined;
  readonly commit: CompiledTool | undefined;
  readonly inspectAsset: CompiledTool | undefined;
  /** One search tool per provider, in the providers' order. */
  readonly searches: readonly { readonly provider: AssetProvider; readonly tool: CompiledTool }[];
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
function toolsOf(setup: HarnessSetup, run: RunContext, input: CheckedRunInput): Map<string, CompiledTool> {
  const { request } = input;
  const offered = offeredTools(setup.tools, new Set(run.capabilities));
  const bind = (template: CompiledTool, execute: ToolBody<never>): CompiledTool => ({
    ...template,
    tool: { ...template.tool, execute: execute as ToolBody },
  });
  const builtIns: CompiledTool[] = [];
  const { vision, renderer } = setup;
  const { inspectVisual, render, commit } = setup.builtIns;
  if (vision !== undefined && inspectVisual !== undefined && run.inputs.descriptors.length > 0) {
    builtIns.push(bind(inspectVisual, inspectVisualBody(run, vision)));
  }
  if (vision !== undefined && renderer !== undefined && render !== undefined && commit !== undefined) {
    const rules = { spec: setup.spec, policies: setup.policies, request };
    builtIns.push(bind(render, renderDesignBody(run, { renderer, vision, rules })));
    builtIns.push(bind(commit, commitRenderBody(run)));
  }
  for (const search of setup.builtIns.searches) {
    builtIns.push(bind(search.tool, searchAssetsBody(run, search.provider)));
  }
  const { inspectAsset } = setup.builtIns;
  if (vision !== undefined && inspectAsset !== undefined) {
    builtIns.push(bind(inspectAsset, inspectAssetBody(run, vision)));
  }
  if ([...offered, ...builtIns].some((tool) => tool.keepsEvidence)) {
    builtIns.push({ ...setup.builtIns.retrieve, tool: retrieveEvidenceTool(run.evidence, run.limits) as AgentTool });
  }
  const all = [...offered, ...builtIns]
    .map((tool) => ({ ...tool, failureMode: failureModeOf(input, tool.name, tool.failureMode) }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const known = new Set([...setup.tools, ...builtIns].map((tool) => tool.name));
  for (const name of input.failureModes.byTool.keys()) {
    if (!known.has(name))
      throw new HarnessInputError(`toolFailureModes.${name}`, `no tool \`${name}\` is configured for this harness`);
  }
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
  const deadline = startDeadline(clock, limits.runTimeoutMs, () =>
    runStopped(
      runId,
      RunLimit.runTimeoutMs,
      limits.runTimeoutMs,
      `it reached its ${limits.runTimeoutMs} ms time limit`,
    ),
  );
  const fuses = setup.fuseBox().forRun(runId);
  const books = createBooks();
  emit({ type: 'run_started' });
  try {
    const design = await trustedDesign(setup, options.design);
    const inputs = createInputArtifactStore(input.inputArtifacts, {
      runId,
      limits,
      clock,
      signal,
      runTimeout: deadline.signal,
    });
    const run: RunContext = {
      runId,
      limits,
      clock,
      signal,
      runTimeout: deadline.signal,
      design,
      canEdit: input.canEdit,
      capabilities: input.capabilities,
      inputs,
      renders: createRenderStore(),
      assets: createAssetRegistry(limits),
      middleware: setup.middleware,
      fuses,
      evidence: createEvidenceStore(),
      callCounts: new Map(),
      toolResultBytes: 0,
      emit,
      outcomes: () => [...books.outcomes],
      recordModelCall: books.record,
    };
    const offered = toolsOf(setup, run, input);
    const transcript: ModelMessage[] = [
      { role: 'system', content: setup.system },
      ...history,
      runPrompt({ ...input, inputArtifacts: inputs.descriptors, design }),
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
        traceRedactor: setup.traceRedactor,
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
