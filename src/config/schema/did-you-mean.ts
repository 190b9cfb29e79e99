/**
 * "Did you mean" hints: the closest known name by edit distance.
 */

/**
 * Edit distance between two strings: insert, delete, substitute, and swap two adjacent
 * characters (`raed` → `read`) each cost 1 (optimal string alignment).
 */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitute = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      let best = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitute);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, (before[j - 2] ?? 0) + 1);
      current.push(best);
    }
    before = previous;
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * The known name closest to `name`, when it is close enough to be a typo: at most a third of the
 * longer name's length away (at least 1, at most 3). Case and `-`/`_` differences count as typos.
 *
 * @example
 * closest('side_efect_class', ['side_effect_class', 'spendability']); // 'side_effect_class'
 */
export function closest(name: string, known: readonly string[]): string | undefined {
  const normal = (text: string): string => text.toLowerCase().replaceAll('-', '_');
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of known) {
    const distance = normal(candidate) === normal(name) ? 0.5 : editDistance(name, candidate);
    const limit = Math.min(3, Math.max(1, Math.floor(Math.max(name.length, candidate.length) / 3)));
    if (distance <= limit && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}
