/**
 * A receipt sink over a JSONL file: one canonical-JSON receipt per line, each append fsynced.
 *
 * Opening reads the file, checks every line and link (`seq`, `prev`) and recovers the head from the
 * last line; a torn or unparseable line, or a broken link, refuses the file (fail closed: a broken
 * chain is never extended). Several processes on one host may append: each append holds a lock
 * file, first reads what others appended since, then writes. Every receipt id is indexed in memory
 * (about 150 bytes each), so an append can refuse a duplicate; for very long chains use a SQL sink.
 */

import type { FileHandle } from 'node:fs/promises';
import { mkdir, open as openFile, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { canonicalJson } from '../../core/canonical-json.js';
import { ReceiptSinkCorruptError, ReceiptSinkUnavailableError } from '../../errors.js';
import { InvalidArgumentError, kindOf, optionsOf } from '../../invalid-argument.js';
import { headOf, type Receipt, receiptShapeProblem } from '../receipt.js';
import type { AppendNextResult, AppendResult, ReceiptSink } from '../receipt-sink.js';
import { readJsonlLines } from './jsonl-lines.js';
import { acquireJsonlLock } from './jsonl-lock.js';

/** Options of {@link createJsonlReceiptSink}. */
export interface JsonlReceiptSinkOptions {
  /** The JSONL file; created (with its directory) on the first append. */
  readonly path: string;
  /** How long an operation waits for another process's append lock. Default 10 000 ms. */
  readonly lockTimeoutMs?: number;
}

/** A {@link ReceiptSink} over a JSONL file. */
export interface JsonlReceiptSink extends ReceiptSink {
  /** The absolute path of the file. */
  readonly path: string;
  /** Read and check the file now; every operation does it first anyway. Throws when the file cannot be trusted. */
  open(): Promise<void>;
}

interface FileState {
  head: Receipt | null;
  /** Bytes of the file read and checked so far. */
  size: number;
  readonly ids: Set<string>;
}

/** Parse one line as the receipt after `head`; throws {@link ReceiptSinkCorruptError} otherwise. */
function parseNext(path: string, text: string, lineNumber: number, head: Receipt | null): Receipt {
  const where = `${path}:${lineNumber}`;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new ReceiptSinkCorruptError(where, 'the line is not JSON', { cause });
  }
  const problem = receiptShapeProblem(value);
  if (problem !== null) throw new ReceiptSinkCorruptError(where, `the line is not a receipt: ${problem}`);
  const receipt = value as Receipt;
  const expected = headOf(head);
  if (receipt.seq !== expected.seq + 1 || receipt.prev !== expected.hash) {
    throw new ReceiptSinkCorruptError(
      where,
      `receipt seq ${receipt.seq} does not follow seq ${expected.seq}; run \`hyphae receipts verify\``,
    );
  }
  return receipt;
}

/**
 * Create a JSONL receipt sink; nothing is read until the first operation (or {@link JsonlReceiptSink.open}).
 *
 * @example
 * const sink = createJsonlReceiptSink({ path: '.hyphae/receipts.jsonl' });
 * const ledger = createLedger({ storage, agentId, policyVersion, receipts: { sink, signer } });
 */
export function createJsonlReceiptSink(given: JsonlReceiptSinkOptions): JsonlReceiptSink {
  const options = optionsOf('createJsonlReceiptSink', given);
  if (typeof options.path !== 'string' || options.path === '') {
    const problem = `must be a non-empty string, got ${kindOf(options.path)}`;
    throw new InvalidArgumentError('createJsonlReceiptSink', 'options.path', problem);
  }
  const path = resolve(options.path);
  const location = `jsonl:${path}`;
  const lockTimeoutMs = options.lockTimeoutMs ?? 10_000;
  let state: FileState | null = null;
  let handle: FileHandle | null = null;
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;

  async function currentSize(): Promise<number> {
    try {
      return (await stat(path)).size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw new ReceiptSinkUnavailableError(location, 'the file could not be read', { cause: error });
    }
  }

  /** Read what was appended since `state.size` (by this process or another); call under the lock. */
  async function catchUp(): Promise<FileState> {
    const known = state ?? { head: null, size: 0, ids: new Set<string>() };
    const size = await currentSize();
    if (size < known.size)
      throw new ReceiptSinkCorruptError(location, `the file shrank from ${known.size} to ${size} bytes`);
    if (size === known.size) {
      state = known;
      return known;
    }
    let lineNumber = known.head?.seq ?? 0;
    for await (const line of readJsonlLines(path, known.size)) {
      lineNumber++;
      if (!line.terminated) {
        throw new ReceiptSinkCorruptError(
          `${path}:${lineNumber}`,
          'the last line is incomplete (a torn write); run `hyphae receipts verify`, then repair the file by hand',
        );
      }
      const receipt = parseNext(path, line.text, lineNumber, known.head);
      if (known.ids.has(receipt.receiptId)) {
        throw new ReceiptSinkCorruptError(`${path}:${lineNumber}`, `receipt id \`${receipt.receiptId}\` appears twice`);
      }
      known.ids.add(receipt.receiptId);
      known.head = receipt;
      known.size = line.end;
    }
    state = known;
    return known;
  }

  /** Run `body` with the file's lock held and the state caught up, one operation at a time. */
  function locked<T>(body: (current: FileState) => Promise<T>): Promise<T> {
    const run = queue.then(async () => {
      if (closed) throw new ReceiptSinkUnavailableError(location, 'the sink is closed');
      // The lock file lives beside the receipt file, so its directory must exist first.
      await mkdir(dirname(path), { recursive: true });
      const release = await acquireJsonlLock(path, lockTimeoutMs);
      try {
        return await body(await catchUp());
      } catch (error) {
        // Whatever went wrong, the next operation re-reads the file from the start.
        if (error instanceof ReceiptSinkCorruptError) state = null;
        throw error;
      } finally {
        await release();
      }
    });
    queue = run.catch(() => undefined);
    return run;
  }

  /** Write `receipt` after the head in `current` (under the lock) and advance the state. */
  async function appendLine(current: FileState, receipt: Receipt): Promise<void> {
    const line = `${canonicalJson(receipt)}\n`;
    try {
      await writeLine(line);
    } catch (error) {
      // A failed write may have left part of the line: the next operation re-reads and refuses it.
      state = null;
      throw new ReceiptSinkUnavailableError(location, 'the receipt could not be written', { cause: error });
    }
    current.ids.add(receipt.receiptId);
    current.head = receipt;
    current.size += Buffer.byteLength(line);
  }

  async function writeLine(text: string): Promise<void> {
    if (handle === null) {
      const created = (await currentSize()) === 0;
      handle = await openFile(path, 'a');
      if (created) await syncDirectory();
    }
    await handle.write(text);
    await handle.sync();
  }

  async function syncDirectory(): Promise<void> {
    // A new file's directory entry must be durable too, or a power loss could lose the whole file.
    const dir = await openFile(dirname(path), 'r').catch(() => null);
    try {
      await dir?.sync();
    } catch {
      // Some platforms cannot fsync a directory; the file's own fsync still holds.
    } finally {
      await dir?.close();
    }
  }

  return {
    location,
    path,
    async open() {
      await locked(async () => undefined);
    },
    append(receipt) {
      return locked(async (current): Promise<AppendResult> => {
        if (current.ids.has(receipt.receiptId)) return { appended: false, conflict: 'duplicate' };
        const head = headOf(current.head);
        if (receipt.seq !== head.seq + 1 || receipt.prev !== head.hash) {
          return { appended: false, conflict: 'head', last: current.head };
        }
        await appendLine(current, receipt);
        return { appended: true };
      });
    },
    appendNext(seal) {
      return locked(async (current): Promise<AppendNextResult> => {
        const receipt = seal(current.head);
        if (current.ids.has(receipt.receiptId)) return { appended: false, conflict: 'duplicate' };
        await appendLine(current, receipt);
        return { appended: true, receipt };
      });
    },
    last() {
      return locked(async (current) => current.head);
    },
    async *readAll() {
      let head: Receipt | null = null;
      if ((await currentSize()) === 0) return;
      for await (const line of readJsonlLines(path)) {
        if (!line.terminated)
          throw new ReceiptSinkCorruptError(`${path}:${line.number}`, 'the last line is incomplete');
        head = parseNext(path, line.text, line.number, head);
        yield head;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await queue;
      await handle?.close();
      handle = null;
    },
  };
}
