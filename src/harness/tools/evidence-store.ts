/**
 * Evidence: the full results of a run's tool calls, kept for the run under content-derived refs.
 */
import { sha256Hex } from '../../core/fingerprint.js';
import type { JsonValue } from '../json-patch/apply-json-patch.js';

/** A run's evidence. */
export interface EvidenceStore {
  /** Keep a result (given with its canonical JSON) and return its ref. */
  put(result: JsonValue, canonical: string): string;
  get(ref: string): JsonValue | undefined;
  readonly size: number;
}

/** The shape of an evidence ref: `ev_` and 16 hex digits. */
export const EVIDENCE_REF_PATTERN = '^ev_[0-9a-f]{16}$';

/**
 * A run's evidence store. Refs are derived from the content (`ev_` + 16 hex digits of its
 * SHA-256), so the same run inputs give the same refs (byte-identical requests); a ref is
 * resolved only against this run's store, so a ref from another run is unknown here.
 */
export function createEvidenceStore(): EvidenceStore {
  const items = new Map<string, JsonValue>();
  return {
    put(result, canonical) {
      const ref = `ev_${sha256Hex(canonical).slice(0, 16)}`;
      items.set(ref, result);
      return ref;
    },
    get: (ref) => items.get(ref),
    get size() {
      return items.size;
    },
  };
}
