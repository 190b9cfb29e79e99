/** One bound: a figure at most `max`, or at least `min`. */
export type Bound = { readonly max: number } | { readonly min: number };

/** One entry of `bench/targets.json`. */
export interface BenchTarget {
  /** `<area>/<figure name>` of `bench/results.json`. */
  readonly figure: string;
  readonly field: 'ratio' | 'value';
  /** What CI holds the figure to. */
  readonly limit: Bound;
  /** Where the figure is headed. */
  readonly goal: Bound;
  readonly why?: string;
}

export interface TargetRow {
  readonly figure: string;
  readonly field: string;
  readonly measured: number | null;
  readonly limit: string;
  readonly goal: string;
  readonly ok: boolean;
  readonly met: boolean;
}

export function checkTargets(
  targets: readonly BenchTarget[],
  figures: readonly {
    readonly area: string;
    readonly name: string;
    readonly value: number;
    readonly ratio: number | null;
  }[],
): { rows: TargetRow[]; failures: string[] };
