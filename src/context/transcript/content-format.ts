/**
 * The adapter of a format that keeps tool calls and results as elements of an array `content`
 * (AI SDK parts, Anthropic blocks), built from where it keeps them.
 */
import { type ContentKeys, contentReaders } from './content-turns.js';
import { type FormatAdapter, type Obj, type OutResult, readTurn, type Turn, type TurnRole } from './turns.js';
import type { TranscriptFormat } from './types.js';

/** A format whose calls and results are elements of `content`. */
export interface ContentFormat {
  readonly format: TranscriptFormat;
  readonly idPrefix: string;
  readonly block: FormatAdapter['block'];
  /** Each message role the format knows, as a turn role. */
  readonly roles: Readonly<Record<string, TurnRole>>;
  /** The role of the messages that carry results, read and appended (`tool`, or Anthropic's `user`). */
  readonly resultRole: 'tool' | 'user';
  readonly keys: ContentKeys;
  /** A result element, written again or, for a call that was never answered, made up. */
  readonly writeResult: (out: OutResult) => Obj;
  readonly write: FormatAdapter['write'];
}

/** The adapter of a content-element format: reading by its keys, appended results as one message. */
export function contentFormat(spec: ContentFormat): FormatAdapter {
  const readers = contentReaders(spec.keys);
  const { format, idPrefix, block, roles, resultRole, writeResult, write } = spec;
  return Object.freeze({
    format,
    idPrefix,
    block,
    read: (message: unknown, index: number): Turn => readTurn(message, index, roles, resultRole, readers),
    write,
    resultMessages: (results: readonly OutResult[]): unknown[] =>
      results.length === 0 ? [] : [{ role: resultRole, content: results.map(writeResult) }],
  });
}
