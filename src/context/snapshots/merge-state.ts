/**
 * The merge rule of run snapshots.
 */
import { canonicalJson } from '../../core/canonical-json.js';
import { InvalidArgumentError, kindOf, readArgument } from '../../invalid-argument.js';
import type { RunState } from '../../storage/snapshot-storage.js';

/**
 * Merge a `record` patch into a run's state: a shallow merge. Each top-level key of `patch`
 * replaces that key (nested objects are replaced whole, not merged); a key whose value is
 * `undefined` is deleted; keys absent from the patch are kept. Values must be JSON; they are
 * copied, so later changes to the caller's objects do not reach recorded state. Returns a new
 * frozen object; `state` is not changed.
 *
 * @example
 * mergeState({ step: 1, draft: 'a' }, { step: 2, draft: undefined }); // { step: 2 }
 */
export function mergeState(state: RunState, patch: RunState): RunState {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
    throw new InvalidArgumentError('mergeState', 'patch', `must be a plain object, got ${kindOf(patch)}`);
  }
  const next: Record<string, unknown> = { ...state };
  for (const [key, value] of readArgument('mergeState', 'patch', () => Object.entries(patch))) {
    if (value === undefined) {
      delete next[key];
      continue;
    }
    // canonicalJson rejects what has no JSON form (NaN, class instances, cycles) with the path.
    next[key] = JSON.parse(canonicalJson(value)) as unknown;
  }
  return Object.freeze(next);
}
