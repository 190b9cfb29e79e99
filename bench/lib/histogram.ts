/**
 * A fixed-size log histogram of durations: constant memory however many iterations run, 1 %
 * relative precision on percentiles, exact mean.
 */

const MIN_US = 0.01;
const GROWTH = 1.01;
const LOG_GROWTH = Math.log(GROWTH);
// 0.01 µs … 1,000 s at 1 % steps.
const BUCKETS = Math.ceil(Math.log(1e9 / MIN_US) / LOG_GROWTH);

/** Summary of one measured case, in microseconds. */
export interface Stats {
  readonly ops: number;
  readonly meanUs: number;
  readonly p50Us: number;
  readonly p99Us: number;
  /** Process CPU time (user + system) per iteration: what the case costs when other processes compete for the CPUs. */
  readonly cpuUs: number;
}

/** Durations of one case. */
export class Histogram {
  readonly #counts = new Float64Array(BUCKETS);
  #ops = 0;
  #sumUs = 0;
  #cpuUs = 0;

  record(us: number): void {
    const bucket = us <= MIN_US ? 0 : Math.min(BUCKETS - 1, Math.floor(Math.log(us / MIN_US) / LOG_GROWTH));
    this.#counts[bucket] = (this.#counts[bucket] ?? 0) + 1;
    this.#ops++;
    this.#sumUs += us;
  }

  /** Add process CPU time spent on iterations already recorded. */
  addCpu(us: number): void {
    this.#cpuUs += us;
  }

  /** The duration below which a fraction `p` of the iterations fall (bucket midpoint). */
  percentile(p: number): number {
    const rank = Math.max(1, Math.ceil(p * this.#ops));
    let seen = 0;
    for (let bucket = 0; bucket < BUCKETS; bucket++) {
      seen += this.#counts[bucket] ?? 0;
      if (seen >= rank) return MIN_US * GROWTH ** (bucket + 0.5);
    }
    return Number.NaN;
  }

  stats(): Stats {
    const ops = this.#ops;
    return {
      ops,
      meanUs: this.#sumUs / ops,
      p50Us: this.percentile(0.5),
      p99Us: this.percentile(0.99),
      cpuUs: this.#cpuUs / ops,
    };
  }
}
