/**
 * The documents the ledger handed its storage for one call (captured by the counting proxy), parsed
 * into the column values a raw baseline writes next to them.
 */

import { decodeRecord } from '../../src/storage/record-codec.js';

/** One written document and the fields drivers store beside it. */
export interface WrittenDoc {
  readonly doc: string;
  readonly tool: string;
  readonly kind: string;
  readonly outcome: string;
  readonly version: number;
}

/** Parse a captured document (in the stored form, `encodeRecord`'s). */
export function parseDoc(doc: string): WrittenDoc {
  const record = decodeRecord(doc, 'bench');
  return { doc, tool: record.tool, kind: record.kind, outcome: record.outcome, version: record.version };
}

/** Split the documents of one call into the inserted one and the CAS updates that follow. */
export function splitWrites(docs: readonly string[]): { first: WrittenDoc; rest: WrittenDoc[] } {
  const [first, ...rest] = docs.map(parseDoc);
  if (first === undefined) throw new RangeError('A raw write needs at least one document');
  return { first, rest };
}
