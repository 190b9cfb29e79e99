/**
 * Reading a JSONL file line by line with byte offsets, so a reader can resume where it stopped and
 * tell a torn last line (no newline) from a complete one.
 */
import { createReadStream } from 'node:fs';

/** One line of a JSONL file. */
export interface JsonlLine {
  /** The line without its newline. */
  readonly text: string;
  /** 1-based line number, counted from where reading started. */
  readonly number: number;
  /** Byte offset just past the line (and its newline). */
  readonly end: number;
  /** False for a last line with no newline: a write that did not finish. */
  readonly terminated: boolean;
}

const NEWLINE = 0x0a;

/**
 * The lines of `path` from byte `start` on. A newline byte never occurs inside a UTF-8 multi-byte
 * sequence, so splitting bytes on it is safe.
 */
export async function* readJsonlLines(path: string, start = 0): AsyncGenerator<JsonlLine> {
  let pending: Buffer[] = [];
  let offset = start;
  let number = 0;
  const stream = createReadStream(path, { start, highWaterMark: 1 << 16 });
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    let from = 0;
    for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, from)) {
      pending.push(chunk.subarray(from, at));
      const bytes = Buffer.concat(pending);
      offset += bytes.length + 1;
      pending = [];
      from = at + 1;
      yield { text: bytes.toString('utf8'), number: ++number, end: offset, terminated: true };
    }
    if (from < chunk.length) pending.push(chunk.subarray(from));
  }
  if (pending.length > 0) {
    const bytes = Buffer.concat(pending);
    yield { text: bytes.toString('utf8'), number: ++number, end: offset + bytes.length, terminated: false };
  }
}
