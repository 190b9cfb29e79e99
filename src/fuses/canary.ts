/**
 * The canary fuse: routes a share of requests to a candidate by a stable hash, compares the arms,
 * and decides to promote, roll back or wait.
 */
import { type Clock, systemClock } from '../core/clock.js';
import { sha256Hex } from '../core/fingerprint.js';
import { type ValueOf, type Vocabulary, vocabulary } from '../core/vocabulary.js';
import { InvalidOptionError } from '../errors.js';
import { optionsOf } from '../invalid-argument.js';
import { CanaryArmStats, type CanaryArmSummary } from './canary-arm.js';

export type { CanaryArmSummary } from './canary-arm.js';

const CANARY_ARMS = ['canary', 'baseline'] as const;
/** The two arms of a canary. */
export const CanaryArm: Vocabulary<typeof CANARY_ARMS> = vocabulary(CANARY_ARMS);
/** The two arms of a canary. */
export type CanaryArm = ValueOf<typeof CanaryArm>;

const CANARY_DECISIONS = ['promote', 'rollback', 'wait'] as const;
/** What a canary decision says. */
export const CanaryDecision: Vocabulary<typeof CANARY_DECISIONS> = vocabulary(CANARY_DECISIONS);
/** What a canary decision says. */
export type CanaryDecision = ValueOf<typeof CanaryDecision>;

/** Limits the candidate must stay within. */
export interface CanaryGates {
  /** Largest allowed canary error rate minus baseline error rate (0.02 = two points). */
  readonly maxErrorRateDelta: number;
  /** Largest allowed canary p95 latency over baseline p95 latency. */
  readonly maxP95LatencyRatio: number;
  /** Largest allowed canary mean cost over baseline mean cost (when the baseline costs something). */
  readonly maxCostPerRequestRatio: number;
  /** Samples each arm needs before anything but `wait` is decided. */
  readonly minSamples: number;
  /** When the baseline is free, the largest allowed mean cost per request in USD (default 0.001). */
  readonly maxCostPerRequestDeltaUsd?: number;
  /** Baseline p95 latencies below this (ms) are compared as this (default 1), so noise is not a ratio. */
  readonly latencyFloorMs?: number;
}

/** Options of {@link canaryFuse}. */
export interface CanaryFuseOptions {
  /** Share of ids routed to the canary, 0..100. */
  readonly percent: number;
  readonly gates: CanaryGates;
  /** Mixed into the routing hash so that two experiments split ids differently (default `''`). */
  readonly salt?: string;
  /** Timestamps of decision events (default: the system clock). */
  readonly clock?: Clock;
}

/** One request's outcome on one arm. */
export interface CanarySample {
  readonly arm: CanaryArm;
  readonly ok: boolean;
  readonly latencyMs: number;
  readonly costUsd: number;
}

/** Whether a sample was counted. */
export type CanaryRecordResult = { readonly accepted: true } | { readonly accepted: false; readonly reason: string };

/** A decision, as logged. */
export interface CanaryDecisionEvent {
  readonly seq: number;
  readonly at: number;
  readonly decision: CanaryDecision;
  /** Why: the gates that failed for a rollback, the missing samples for a wait. */
  readonly reasons: readonly string[];
  readonly canary: CanaryArmSummary;
  readonly baseline: CanaryArmSummary;
  readonly metrics: {
    readonly errorRateDelta: number;
    readonly p95LatencyRatio: number;
    /** `null` when the baseline is free (the absolute delta is compared instead). */
    readonly costRatio: number | null;
    readonly costDeltaUsd: number;
  };
}

/** A canary. */
export interface CanaryFuse {
  /** The arm of a request id: SHA-256 of salt + id, stable across processes. */
  route(id: string): CanaryArm;
  /** Count one request's outcome; an invalid sample is refused, never thrown. */
  record(sample: CanarySample): CanaryRecordResult;
  /** Decide from the samples so far, and log the decision. */
  decide(): CanaryDecisionEvent;
  /** Every decision so far. */
  readonly events: readonly CanaryDecisionEvent[];
}

function numberIn(option: string, value: unknown, min: number, max = Number.POSITIVE_INFINITY): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw new InvalidOptionError(
      option,
      `\`${option}\` must be a finite number in ${min}..${max} (got \`${String(value)}\`)`,
    );
  }
  return value;
}

function checkedGates(gates: CanaryGates): Required<CanaryGates> {
  const minSamples = numberIn('gates.minSamples', gates?.minSamples, 1);
  if (!Number.isInteger(minSamples))
    throw new InvalidOptionError('gates.minSamples', '`gates.minSamples` must be an integer');
  return {
    maxErrorRateDelta: numberIn('gates.maxErrorRateDelta', gates.maxErrorRateDelta, 0, 1),
    maxP95LatencyRatio: numberIn('gates.maxP95LatencyRatio', gates.maxP95LatencyRatio, 0),
    maxCostPerRequestRatio: numberIn('gates.maxCostPerRequestRatio', gates.maxCostPerRequestRatio, 0),
    minSamples,
    maxCostPerRequestDeltaUsd: numberIn('gates.maxCostPerRequestDeltaUsd', gates.maxCostPerRequestDeltaUsd ?? 0.001, 0),
    latencyFloorMs: numberIn('gates.latencyFloorMs', gates.latencyFloorMs ?? 1, 0),
  };
}

function invalidSample(sample: CanarySample): string | null {
  if (sample?.arm !== CanaryArm.canary && sample?.arm !== CanaryArm.baseline)
    return `Unknown arm \`${String(sample?.arm)}\``;
  if (typeof sample.ok !== 'boolean') return '`ok` must be a boolean';
  for (const field of ['latencyMs', 'costUsd'] as const) {
    const value = sample[field];
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      return `\`${field}\` must be a finite, non-negative number (got \`${String(value)}\`)`;
    }
  }
  return null;
}

const percentText = (rate: number): string => `${Number((rate * 100).toPrecision(4))} %`;
const EPSILON = 1e-12;

/**
 * Canary fuse: ids are routed by a stable hash; `decide()` waits until both arms have `minSamples`,
 * then rolls back when the error rate, p95 latency or cost per request of the candidate breaks a
 * gate, and promotes otherwise. A free baseline is compared by the absolute cost difference, not by
 * an infinite ratio, so a candidate costing a fraction of a cent is not rolled back for it.
 *
 * @example
 * const canary = canaryFuse({
 *   percent: 10,
 *   gates: { maxErrorRateDelta: 0.02, maxP95LatencyRatio: 1.5, maxCostPerRequestRatio: 1.5, minSamples: 100 },
 * });
 * const arm = canary.route(requestId);
 * canary.record({ arm, ok: true, latencyMs: 420, costUsd: 0.002 });
 * canary.decide().decision; // 'wait' until both arms have 100 samples
 */
export function canaryFuse(given: CanaryFuseOptions): CanaryFuse {
  const options = optionsOf('canaryFuse', given);
  const percent = numberIn('percent', options.percent, 0, 100);
  const gates = checkedGates(options.gates);
  const salt = options.salt ?? '';
  const clock = options.clock ?? systemClock;
  const arms = { canary: new CanaryArmStats(), baseline: new CanaryArmStats() };
  const events: CanaryDecisionEvent[] = [];

  function decide(): CanaryDecisionEvent {
    const canary = arms.canary.summary();
    const baseline = arms.baseline.summary();
    const errorRateDelta = canary.errorRate - baseline.errorRate;
    const p95LatencyRatio = canary.p95LatencyMs / Math.max(baseline.p95LatencyMs, gates.latencyFloorMs, EPSILON);
    const costDeltaUsd = canary.meanCostUsd - baseline.meanCostUsd;
    const costRatio = baseline.meanCostUsd === 0 ? null : canary.meanCostUsd / baseline.meanCostUsd;
    const reasons: string[] = [];
    for (const [arm, summary] of [
      ['canary', canary],
      ['baseline', baseline],
    ] as const) {
      if (summary.samples < gates.minSamples)
        reasons.push(`\`${arm}\` has ${summary.samples} of ${gates.minSamples} samples`);
    }
    const waiting = reasons.length > 0;
    if (!waiting) {
      if (errorRateDelta > gates.maxErrorRateDelta + EPSILON) {
        reasons.push(
          `Error rate ${percentText(canary.errorRate)} against ${percentText(baseline.errorRate)} (allowed delta ${percentText(gates.maxErrorRateDelta)})`,
        );
      }
      if (p95LatencyRatio > gates.maxP95LatencyRatio + EPSILON) {
        reasons.push(
          `p95 latency ${canary.p95LatencyMs} ms against ${baseline.p95LatencyMs} ms (×${p95LatencyRatio.toFixed(2)}, allowed ×${gates.maxP95LatencyRatio})`,
        );
      }
      if (costRatio === null) {
        if (costDeltaUsd > gates.maxCostPerRequestDeltaUsd + EPSILON) {
          reasons.push(
            `Cost per request $${canary.meanCostUsd} against a free baseline (allowed +$${gates.maxCostPerRequestDeltaUsd})`,
          );
        }
      } else if (costRatio > gates.maxCostPerRequestRatio + EPSILON) {
        reasons.push(
          `Cost per request ×${costRatio.toFixed(2)} the baseline's (allowed ×${gates.maxCostPerRequestRatio})`,
        );
      }
    }
    const decision = waiting
      ? CanaryDecision.wait
      : reasons.length > 0
        ? CanaryDecision.rollback
        : CanaryDecision.promote;
    const event: CanaryDecisionEvent = Object.freeze({
      seq: events.length + 1,
      at: clock.now(),
      decision,
      reasons: Object.freeze(reasons),
      canary,
      baseline,
      metrics: { errorRateDelta, p95LatencyRatio, costRatio, costDeltaUsd },
    });
    events.push(event);
    return event;
  }

  return {
    route(id) {
      const hash = sha256Hex(salt + String(id));
      // 52 bits of the hash as a fraction in [0, 1): exact in a double, uniform enough for routing.
      const fraction = Number.parseInt(hash.slice(0, 13), 16) / 2 ** 52;
      return fraction * 100 < percent ? CanaryArm.canary : CanaryArm.baseline;
    },
    record(sample) {
      const reason = invalidSample(sample);
      if (reason !== null) return { accepted: false, reason };
      arms[sample.arm].record(sample.ok, sample.latencyMs, sample.costUsd);
      return { accepted: true };
    },
    decide,
    get events() {
      return events;
    },
  };
}
