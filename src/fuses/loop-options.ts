/**
 * Options of the loop fuse and their validation (construction may throw; checks never do).
 */
import { InvalidOptionError } from '../errors.js';
import { integerOption } from '../option-checks.js';

/** Options of {@link loopFuse}. */
export interface LoopFuseOptions {
  /** The Nth identical call without a new result is refused (default 3; at least 2). */
  readonly repeatThreshold?: number;
  /** Longest cycle period detected, A,B,A,B being period 2 (default 4; 1 turns cycle detection off). */
  readonly maxCycleLength?: number;
  /**
   * Per-tool repeat thresholds for tools that legitimately repeat (polling): `{ poll_status: 20 }`.
   * A cycle made only of tools with an allowance is not refused as a cycle.
   */
  readonly allowances?: Readonly<Record<string, number>>;
  /**
   * How many of the run's most recent allowed calls are remembered (default 64, raised to cover
   * the thresholds and two cycle periods; at most 1,000,000). Memory stays bounded by this whatever
   * the run length.
   */
  readonly window?: number;
  /**
   * A loop refusal ends the run (default `true`: the model is the part that is stuck, and asking it
   * again costs a model call per turn). `false` hands the refusal back and lets the model change course.
   */
  readonly terminal?: boolean;
  /**
   * How many times a call that failed may be retried identically before a retry counts as a
   * repeat (default 2): a read that throws twice and succeeds on the third try is never refused.
   * Failures are learnt through `recordToolResult(call, { ok: false })`.
   */
  readonly retryAllowance?: number;
  /** Name in verdicts (default `loop`). */
  readonly name?: string;
}

/** Validated loop settings. */
export interface LoopSettings {
  readonly repeatThreshold: number;
  readonly maxCycleLength: number;
  readonly allowances: ReadonlyMap<string, number>;
  readonly window: number;
  readonly terminal: boolean;
  readonly retryAllowance: number;
}

/** The largest window (and so the largest threshold) a loop fuse accepts. */
const MAX_WINDOW = 1_000_000;

function integerAtLeast(option: string, value: number, min: number): number {
  return integerOption(option, value, min);
}

/** Check `options` and fill in defaults; throws {@link InvalidOptionError} on a setting that cannot work. */
export function loopSettings(options: LoopFuseOptions): LoopSettings {
  const repeatThreshold = integerAtLeast('repeatThreshold', options.repeatThreshold ?? 3, 2);
  const maxCycleLength = integerAtLeast('maxCycleLength', options.maxCycleLength ?? 4, 1);
  const allowances = new Map<string, number>();
  for (const [tool, threshold] of Object.entries(options.allowances ?? {})) {
    allowances.set(tool, integerAtLeast(`allowances.${tool}`, threshold, 2));
  }
  const needed = Math.max(repeatThreshold, 2 * maxCycleLength, ...allowances.values());
  const window = options.window === undefined ? Math.max(64, needed) : integerAtLeast('window', options.window, needed);
  if (window > MAX_WINDOW) {
    throw new InvalidOptionError('window', `\`window\` must be at most ${MAX_WINDOW} (got \`${window}\`)`);
  }
  const retryAllowance = integerAtLeast('retryAllowance', options.retryAllowance ?? 2, 0);
  return { repeatThreshold, maxCycleLength, allowances, window, terminal: options.terminal !== false, retryAllowance };
}
