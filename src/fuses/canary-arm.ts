/**
 * Running statistics of one canary arm in constant memory: counts, cost sum and a log histogram of
 * latencies (1 % buckets), so a canary that runs for weeks does not grow.
 */

const MIN_MS = 0.01;
const GROWTH = 1.01;
const LOG_GROWTH = Math.log(GROWTH);
// 0.01 ms … 10^7 ms (about 2.8 hours) at 1 % steps; anything slower lands in the last bucket.
const BUCKETS = Math.ceil(Math.log(1e7 / MIN_MS) / LOG_GROWTH);

/** Summary of one arm, as decisions report it. */
export interface CanaryArmSummary {
  readonly samples: number;
  readonly errors: number;
  readonly errorRate: number;
  /** 95th percentile latency (1 % precision; 0 when at least 95 % of samples took no time). */
  readonly p95LatencyMs: number;
  readonly meanCostUsd: number;
}

/** The statistics of one arm. */
export class CanaryArmStats {
  readonly #buckets = new Float64Array(BUCKETS);
  #zeros = 0;
  #samples = 0;
  #errors = 0;
  #costUsd = 0;

  record(ok: boolean, latencyMs: number, costUsd: number): void {
    this.#samples++;
    if (!ok) this.#errors++;
    this.#costUsd += costUsd;
    if (latencyMs < MIN_MS) {
      this.#zeros++;
      return;
    }
    const bucket = Math.min(BUCKETS - 1, Math.floor(Math.log(latencyMs / MIN_MS) / LOG_GROWTH));
    this.#buckets[bucket] = (this.#buckets[bucket] ?? 0) + 1;
  }

  #percentile(p: number): number {
    const rank = Math.max(1, Math.ceil(p * this.#samples));
    let seen = this.#zeros;
    if (seen >= rank) return 0;
    for (let bucket = 0; bucket < BUCKETS; bucket++) {
      seen += this.#buckets[bucket] ?? 0;
      if (seen >= rank) return Number((MIN_MS * GROWTH ** (bucket + 0.5)).toPrecision(6));
    }
    return 0;
  }

  summary(): CanaryArmSummary {
    const n = this.#samples;
    return {
      samples: n,
      errors: this.#errors,
      errorRate: n === 0 ? 0 : this.#errors / n,
      p95LatencyMs: n === 0 ? 0 : this.#percentile(0.95),
      meanCostUsd: n === 0 ? 0 : this.#costUsd / n,
    };
  }
}
