/**
 * The state of one run, shared by the loop and the tool pipeline. Created per run, so nothing
 * (budgets, fuse history, evidence) is ever shared between runs.
 */
import type { Clock } from '../../core/clock.js';
import type { FuseRun } from '../../fuses/run-box.js';
import type { AssetRegistry } from '../assets/asset-registry.js';
import type { EventInput } from '../events.js';
import type { JsonValue } from '../json-patch/apply-json-patch.js';
import type { ResolvedLimits } from '../limits.js';
import type { ModelUsage } from '../models/types.js';
import type { ToolOutcome } from '../tools/agent-tool.js';
import type { EvidenceStore } from '../tools/evidence-store.js';
import type { ToolMiddleware } from '../tools/tool-middleware.js';
import type { ModelCallTrace } from '../traces.js';
import type { RenderStore } from '../visual/render-store.js';
import type { InputArtifactStore } from './input-artifacts.js';

/** One run's state. */
export interface RunContext {
  readonly runId: string;
  readonly limits: ResolvedLimits;
  readonly clock: Clock;
  /** The caller's signal, unchanged. */
  readonly signal: AbortSignal | undefined;
  /** Aborts with a `RunLimitExceededError` when the run's time limit is reached. */
  readonly runTimeout: AbortSignal;
  /** The trusted design (frozen): the base of every patch. */
  readonly design: JsonValue;
  readonly canEdit: boolean;
  readonly capabilities: readonly string[];
  /** The run's input artifacts (descriptors, and bytes loaded once per run). */
  readonly inputs: InputArtifactStore;
  /** The run's renders and the committed one. */
  readonly renders: RenderStore;
  /** The assets found by this run's searches. */
  readonly assets: AssetRegistry;
  readonly middleware: readonly ToolMiddleware[];
  /** The loop guard and the provider-token budget (fuses that are off allow everything). */
  readonly fuses: FuseRun;
  readonly evidence: EvidenceStore;
  /** Charged calls per tool. */
  readonly callCounts: Map<string, number>;
  /** Bytes of tool results shown to the model so far. */
  toolResultBytes: number;
  readonly emit: (event: EventInput) => void;
  /** Every tool outcome of the run so far (of the steps already finished), in order. */
  readonly outcomes: () => readonly ToolOutcome[];
  /** Record a model call made outside the main loop (vision reviews). */
  readonly recordModelCall: (trace: ModelCallTrace, usage: ModelUsage | undefined) => void;
}
