/**
 * `createPatchHarness`: an agent that proposes RFC 6902 changes to an application-owned JSON
 * document and returns a validated proposal. It never applies or persists anything.
 */
import { randomUUID } from 'node:crypto';
import { compileSchema } from '../boundary/compile-schema.js';
import type { JsonSchemaObject } from '../boundary/field-spec.js';
import { canonicalJson } from '../core/canonical-json.js';
import { type Clock, systemClock } from '../core/clock.js';
import { budgetFuse } from '../fuses/budget.js';
import { createFuseBox, type FuseBoxOptions } from '../fuses/fuse-box.js';
import { loopFuse } from '../fuses/loop.js';
import { checkOptions } from '../invalid-argument.js';
import { type AssetProvider, checkAssetProviders } from './assets/asset-provider.js';
import { compactSupersededResults } from './context-policy/compact-superseded-results.js';
import type { ModelContextPolicy } from './context-policy/context-policy.js';
import { compileDesignSpec, type DesignSpec } from './design/design-spec.js';
import { invalidHarnessOption } from './errors.js';
import { type HarnessLimits, type ResolvedLimits, resolveLimits } from './limits.js';
import type { MainModel, VisionModel } from './models/types.js';
import type { CandidatePolicy } from './run/candidate-policy.js';
import { systemMessage } from './run/contract.js';
import type { PatchRunOptions } from './run/run-input.js';
import type { RunResult } from './run/run-loop.js';
import { startRun } from './run/start-run.js';
import type { AgentTool } from './tools/agent-tool.js';
import { COMMIT_RENDER, COMMIT_RENDER_DEFINITION } from './tools/commit-render.js';
import { compileTool, compileTools } from './tools/compile-tools.js';
import { createEvidenceStore } from './tools/evidence-store.js';
import { INSPECT_ASSET, inspectAssetDefinition } from './tools/inspect-asset.js';
import { blankQuestion, INSPECT_VISUAL, inspectVisualDefinition } from './tools/inspect-visual.js';
import { RENDER_DESIGN, renderDesignDefinition } from './tools/render-design.js';
import { RETRIEVE_EVIDENCE, retrieveEvidenceTool } from './tools/retrieve-evidence.js';
import { blankQuery, searchAssetsDefinition, searchToolName } from './tools/search-assets.js';
import type { ToolMiddleware } from './tools/tool-middleware.js';
import type { TraceRedactor } from './traces.js';
import { createRenderer, type Renderer, type RenderFunction } from './visual/renderer.js';
import type { VisionSetup } from './visual/review-visually.js';

/** How render reviews are asked for. */
export interface VisualReviewOptions {
  /**
   * JSON Schema (2020-12) of a structured review, owned by the application: the vision model must
   * answer with a value valid against it, and `render_design` returns that value as
   * `visual_review`. Without it the review is text.
   */
  readonly outputSchema?: JsonSchemaObject;
  /** Guidance for the reviewer (what matters in this application's designs). */
  readonly instructions?: string;
}

/** Options of {@link createPatchHarness}. */
export interface PatchHarnessOptions {
  readonly designSpec: DesignSpec;
  readonly mainModel: MainModel;
  /** Reviews renders and looks at input artifacts and asset previews. */
  readonly visionModel?: VisionModel;
  /** With `visionModel`, enables `render_design` and `commit_render`. A function is wrapped by {@link createRenderer}. */
  readonly renderer?: Renderer | RenderFunction;
  /** The structured review schema and the reviewer's guidance. */
  readonly visualReview?: VisualReviewOptions;
  readonly tools?: readonly AgentTool[];
  /** Named asset sources, offered as `search_assets_<name>` (and, with `visionModel`, `inspect_asset`). */
  readonly assetProviders?: readonly AssetProvider[];
  readonly middleware?: readonly ToolMiddleware[];
  readonly candidatePolicies?: readonly CandidatePolicy[];
  /** Default {@link compactSupersededResults}. */
  readonly contextPolicy?: ModelContextPolicy;
  readonly limits?: HarnessLimits;
  /** Application guidance, sent after the harness's contract in the system message. */
  readonly instructions?: string;
  /** Time source for timeouts and elapsed times (default: the system clock). */
  readonly clock?: Clock;
  /** What `StepTrace.redacted()` returns, in place of the default (ids, statuses, sizes, digests). */
  readonly traceRedactor?: TraceRedactor;
}

/** A configured harness; each `run` is independent. */
export interface PatchHarness {
  /** Run the agent once; resolves with a validated proposal, never applied to application state. */
  run(options: PatchRunOptions): Promise<RunResult>;
  /** The limits in force, defaults filled in. */
  readonly limits: ResolvedLimits;
}

function named<T extends { readonly name?: unknown }>(
  items: readonly T[] | undefined,
  option: string,
  method: string,
): readonly T[] {
  if (items === undefined) return [];
  if (!Array.isArray(items)) throw invalidHarnessOption(option, 'expected an array');
  items.forEach((item, index) => {
    const ok = typeof item === 'object' && item !== null && typeof item.name === 'string';
    if (!ok)
      throw invalidHarnessOption(
        `${option}[${index}]`,
        `expected an object with a \`name\`${method === '' ? '' : ` and \`${method}\``}`,
      );
  });
  return Object.freeze([...items]);
}

function rendererOf(
  renderer: Renderer | RenderFunction | undefined,
  vision: VisionModel | undefined,
): Renderer | undefined {
  if (renderer === undefined) return undefined;
  if (vision === undefined)
    throw invalidHarnessOption('renderer', 'a renderer needs a `visionModel` to review its renders');
  if (typeof renderer === 'function') return createRenderer(renderer);
  if (typeof renderer !== 'object' || renderer === null || typeof renderer.render !== 'function') {
    throw invalidHarnessOption('renderer', 'expected `{ render(candidate, context) }` or a render function');
  }
  return renderer;
}

function visionOf(model: VisionModel | undefined, review: VisualReviewOptions | undefined): VisionSetup | undefined {
  if (review !== undefined && (typeof review !== 'object' || review === null)) {
    throw invalidHarnessOption('visualReview', 'expected `{ outputSchema?, instructions? }`');
  }
  if (model === undefined) {
    if (review !== undefined) throw invalidHarnessOption('visualReview', 'needs a `visionModel`');
    return undefined;
  }
  const instructions = review?.instructions;
  if (instructions !== undefined && typeof instructions !== 'string') {
    throw invalidHarnessOption('visualReview.instructions', 'expected a string');
  }
  const schema = review?.outputSchema;
  let compiled: VisionSetup['review'];
  if (schema !== undefined) {
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
      throw invalidHarnessOption('visualReview.outputSchema', 'expected a JSON Schema object');
    }
    const declared = schema.$schema;
    if (declared !== undefined && (typeof declared !== 'string' || !declared.includes('2020-12'))) {
      throw invalidHarnessOption(
        'visualReview.outputSchema',
        `expected JSON Schema 2020-12, got \`$schema\` \`${String(declared)}\``,
      );
    }
    try {
      const frozen = Object.freeze(JSON.parse(canonicalJson(schema)) as JsonSchemaObject);
      compiled = { schema: frozen, compiled: compileSchema(frozen) };
    } catch (error) {
      throw invalidHarnessOption('visualReview.outputSchema', (error as Error).message, { cause: error });
    }
  }
  const trimmed = instructions?.trim();
  return Object.freeze({
    model,
    review: compiled,
    instructions: trimmed === undefined || trimmed === '' ? undefined : trimmed,
  });
}

/**
 * Create a patch harness. Everything is checked here — the design schema against the 2020-12
 * meta-schema, tool names and schemas, limits — so that a misconfiguration fails at start-up.
 *
 * @example
 * const harness = createPatchHarness({
 *   designSpec: zodDesignSpec(z.object({ title: z.string(), color: z.string() })),
 *   mainModel: createAiSdkMainModel({ model: openai('gpt-4.1') }),
 *   tools: [lookupColor],
 *   instructions: 'Keep titles under 60 characters.',
 * });
 * const result = await harness.run({ request: 'Make it blue', design: stored, canEdit: true });
 * // result.patch: [{ op: 'replace', path: '/color', value: '#0000ff' }]; the application decides what to do with it
 */
export function createPatchHarness(options: PatchHarnessOptions): PatchHarness {
  checkOptions('createPatchHarness', options, false);
  if (typeof options !== 'object' || options === null) throw invalidHarnessOption('options', 'expected an object');
  const limits = resolveLimits(options.limits);
  const spec = compileDesignSpec(options.designSpec);
  const { mainModel, visionModel } = options;
  if (typeof mainModel?.complete !== 'function' || typeof mainModel.id !== 'string') {
    throw invalidHarnessOption('mainModel', 'expected `{ id: string, complete(request) }`');
  }
  if (visionModel !== undefined && typeof visionModel.complete !== 'function') {
    throw invalidHarnessOption('visionModel', 'expected `{ id: string, complete(request) }`');
  }
  const renderer = rendererOf(options.renderer, visionModel);
  if (options.instructions !== undefined && typeof options.instructions !== 'string') {
    throw invalidHarnessOption('instructions', 'expected a string');
  }
  const vision = visionOf(visionModel, options.visualReview);
  const providers = checkAssetProviders(options.assetProviders);
  const searches = providers.map((provider) => ({
    provider,
    tool: compileTool(searchAssetsDefinition(provider, limits) as AgentTool, limits, searchToolName(provider), {
      precheck: blankQuery,
    }),
  }));
  const reserved = [RETRIEVE_EVIDENCE, INSPECT_VISUAL, RENDER_DESIGN, COMMIT_RENDER, INSPECT_ASSET];
  const tools = compileTools(options.tools ?? [], limits, [...reserved, ...searches.map((search) => search.tool.name)]);
  // Compiled once (schema and settings); each run swaps in a body bound to its own state.
  const builtIns = Object.freeze({
    retrieve: compileTool(retrieveEvidenceTool(createEvidenceStore(), limits), limits, RETRIEVE_EVIDENCE, {
      keepsEvidence: false,
    }),
    inspectVisual:
      vision === undefined
        ? undefined
        : compileTool(inspectVisualDefinition(limits) as AgentTool, limits, INSPECT_VISUAL, {
            precheck: blankQuestion,
          }),
    render:
      renderer === undefined
        ? undefined
        : compileTool(renderDesignDefinition(limits) as AgentTool, limits, RENDER_DESIGN, {
            selfCharged: true,
            precheck: blankQuestion,
          }),
    commit:
      renderer === undefined ? undefined : compileTool(COMMIT_RENDER_DEFINITION as AgentTool, limits, COMMIT_RENDER),
    inspectAsset:
      vision === undefined || providers.length === 0
        ? undefined
        : compileTool(inspectAssetDefinition(limits) as AgentTool, limits, INSPECT_ASSET, {
            selfCharged: true,
            precheck: blankQuestion,
          }),
    searches: Object.freeze(searches),
  });
  const fuses: FuseBoxOptions = {
    keepLog: false,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(limits.maxIdenticalToolCalls === undefined
      ? {}
      : { loop: loopFuse({ repeatThreshold: limits.maxIdenticalToolCalls + 1, maxCycleLength: 1, terminal: true }) }),
    ...(limits.maxProviderTokens === undefined ? {} : { budget: budgetFuse({ maxTokens: limits.maxProviderTokens }) }),
  };
  const setup = Object.freeze({
    limits,
    spec,
    mainModel,
    vision,
    renderer,
    tools,
    builtIns,
    middleware: named(options.middleware, 'middleware', ''),
    policies: named(options.candidatePolicies, 'candidatePolicies', 'check'),
    contextPolicy: options.contextPolicy ?? compactSupersededResults(),
    system: systemMessage(options.instructions, spec.promptSchema),
    clock: options.clock ?? systemClock,
    traceRedactor: options.traceRedactor,
    fuseBox: () => createFuseBox(fuses),
    newRunId: randomUUID,
  });
  if (options.traceRedactor !== undefined && typeof options.traceRedactor !== 'function')
    throw invalidHarnessOption('traceRedactor', 'expected a function `(trace, defaultRedaction) => object`');
  if (typeof setup.contextPolicy?.apply !== 'function')
    throw invalidHarnessOption('contextPolicy', 'expected `{ name, apply(messages, info) }`');
  return Object.freeze({
    limits,
    run: function runPatchHarness(runOptions: PatchRunOptions): Promise<RunResult> {
      return startRun(setup, runOptions);
    },
  });
}
