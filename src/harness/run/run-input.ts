/**
 * The options of one run, and their checks.
 */
import { HarnessInputError } from '../errors.js';
import type { HarnessEvent } from '../events.js';
import type { ResolvedLimits } from '../limits.js';
import { ToolFailureMode } from '../tools/agent-tool.js';
import type { StepTrace } from '../traces.js';
import { type CheckedInputArtifact, checkInputArtifacts, type InputArtifact } from './input-artifacts.js';
import type { HistoryMessage } from './run-prompt.js';

/** What one run is asked to do. */
export interface PatchRunOptions {
  /** The user's request. */
  readonly request: string;
  /** The current design as stored by the application (trusted: migrated and normalised by the spec). */
  readonly design: unknown;
  /** Whether the run may propose a change; when false the patch must be null. */
  readonly canEdit: boolean;
  /** What the caller may do; tools requiring anything else are not offered. */
  readonly capabilities?: readonly string[];
  /** Earlier conversation: plain user and assistant text only. */
  readonly history?: readonly HistoryMessage[];
  /**
   * Files for this run only, eager (bytes now) or lazy (loaded on first use, once per run). The
   * model sees their descriptors (id, kind, metadata), never their bytes; tools load them with
   * `context.loadInputArtifact(id)`.
   */
  readonly inputArtifacts?: readonly InputArtifact[];
  /** Lifecycle events (ids, status, elapsed time). */
  readonly onEvent?: (event: HarnessEvent) => void;
  /** Called with each step's trace when the step is done. */
  readonly onStep?: (trace: StepTrace) => void | Promise<void>;
  /** Aborts the run; passed unchanged to every model and tool call, and the run rejects with its reason. */
  readonly signal?: AbortSignal;
  /** Id of the run (default: a random UUID). */
  readonly runId?: string;
  /**
   * How a failed tool call ends for this run, whatever the tools declare: `return_error` (the model
   * reads the error and may try again) or `raise` (the run rejects with `ToolRaisedError`).
   */
  readonly failureMode?: ToolFailureMode;
  /** The same per tool, for this run; wins over `failureMode` and the tool's own declaration. */
  readonly toolFailureModes?: Readonly<Record<string, ToolFailureMode>>;
}

/** Checked run options. */
export interface CheckedRunInput {
  readonly request: string;
  readonly canEdit: boolean;
  /** Sorted, without duplicates. */
  readonly capabilities: readonly string[];
  readonly inputArtifacts: readonly CheckedInputArtifact[];
  /** The failure mode of each tool this run overrides (`*` for every tool), resolved in {@link failureModeOf}. */
  readonly failureModes: {
    readonly all: ToolFailureMode | undefined;
    readonly byTool: ReadonlyMap<string, ToolFailureMode>;
  };
}

const MODES: readonly string[] = Object.values(ToolFailureMode);

function checkFailureModes(options: PatchRunOptions): CheckedRunInput['failureModes'] {
  const { failureMode: all, toolFailureModes: byTool = {} } = options;
  if (all !== undefined && !MODES.includes(all))
    throw new HarnessInputError('failureMode', `expected \`return_error\` or \`raise\`, got \`${String(all)}\``);
  if (typeof byTool !== 'object' || byTool === null || Array.isArray(byTool))
    throw new HarnessInputError('toolFailureModes', 'expected an object of tool names to failure modes');
  const entries = Object.entries(byTool);
  for (const [name, mode] of entries) {
    if (!MODES.includes(mode))
      throw new HarnessInputError(
        `toolFailureModes.${name}`,
        `expected \`return_error\` or \`raise\`, got \`${String(mode)}\``,
      );
  }
  return { all, byTool: new Map(entries) };
}

/** The failure mode of `tool` in this run: its per-run override, the run's, else the tool's own. */
export function failureModeOf(input: CheckedRunInput, tool: string, declared: ToolFailureMode): ToolFailureMode {
  return input.failureModes.byTool.get(tool) ?? input.failureModes.all ?? declared;
}

/** Check a run's options; throws {@link HarnessInputError}. */
export function checkRunInput(options: PatchRunOptions, limits: ResolvedLimits): CheckedRunInput {
  if (typeof options !== 'object' || options === null) throw new HarnessInputError('options', 'expected an object');
  const { request, canEdit } = options;
  if (typeof request !== 'string' || request.trim() === '')
    throw new HarnessInputError('request', 'expected a non-empty string');
  const bytes = Buffer.byteLength(request, 'utf8');
  if (bytes > limits.maxRequestBytes) {
    throw new HarnessInputError('request', `${bytes} bytes is over the ${limits.maxRequestBytes}-byte limit`);
  }
  if (typeof canEdit !== 'boolean') throw new HarnessInputError('canEdit', 'expected a boolean');
  const capabilities = options.capabilities ?? [];
  if (!Array.isArray(capabilities) || capabilities.some((c) => typeof c !== 'string' || c === '')) {
    throw new HarnessInputError('capabilities', 'expected an array of non-empty strings');
  }
  if (options.runId !== undefined && (typeof options.runId !== 'string' || options.runId === '')) {
    throw new HarnessInputError('runId', 'expected a non-empty string');
  }
  return {
    request,
    canEdit,
    capabilities: Object.freeze([...new Set(capabilities)].sort()),
    inputArtifacts: checkInputArtifacts(options.inputArtifacts, limits),
    failureModes: checkFailureModes(options),
  };
}
