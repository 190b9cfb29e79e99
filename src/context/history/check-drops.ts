/**
 * Did a framework lose or reorder messages? Ordered fingerprint matching, O(n).
 */

import { arrayArgument, readArgument } from '../../invalid-argument.js';
import { turnFingerprint } from './turn-fingerprint.js';

/** What {@link compareHistories} found. */
export interface DropReport {
  /** True when nothing was dropped or reordered (added messages are allowed). */
  readonly ok: boolean;
  /** Indices in the original of messages missing from the processed history. */
  readonly dropped: readonly number[];
  /** Indices in the original of messages found earlier in the processed history than order allows. */
  readonly reordered: readonly number[];
  /** Indices in the processed history of messages the original did not have. */
  readonly added: readonly number[];
}

/**
 * Match every original message, in order, to the next unused processed message with the same
 * fingerprint. Each fingerprint keeps a queue of processed positions, so repeated identical
 * messages count one by one (a multiset in order, not a set): dropping one of two identical turns
 * is found. A match that lands before the previous match is a reorder.
 *
 * @example
 * compareHistories([a, b, c], [a, c]); // { ok: false, dropped: [1], reordered: [], added: [] }
 */
export function compareHistories(original: readonly unknown[], processed: readonly unknown[]): DropReport {
  arrayArgument('compareHistories', 'original', original);
  arrayArgument('compareHistories', 'processed', processed);
  return readArgument('compareHistories', 'messages', () => compare(original, processed));
}

function compare(original: readonly unknown[], processed: readonly unknown[]): DropReport {
  const positions = new Map<string, number[]>();
  processed.forEach((message, index) => {
    const fingerprint = turnFingerprint(message);
    const list = positions.get(fingerprint);
    if (list === undefined) positions.set(fingerprint, [index]);
    else list.push(index);
  });
  const cursors = new Map<string, number>();
  const matched = new Uint8Array(processed.length);
  const dropped: number[] = [];
  const reordered: number[] = [];
  let last = -1;
  original.forEach((message, index) => {
    const fingerprint = turnFingerprint(message);
    const cursor = cursors.get(fingerprint) ?? 0;
    const position = positions.get(fingerprint)?.[cursor];
    if (position === undefined) {
      dropped.push(index);
      return;
    }
    cursors.set(fingerprint, cursor + 1);
    matched[position] = 1;
    if (position < last) reordered.push(index);
    else last = position;
  });
  const added: number[] = [];
  matched.forEach((hit, index) => {
    if (hit === 0) added.push(index);
  });
  return { ok: dropped.length === 0 && reordered.length === 0, dropped, reordered, added };
}
