/**
 * Verify a receipt chain: every signature, every link, every position; report the first broken link.
 *
 * Receipts are checked in order. The receipt at position n must have `seq` n, a `prev` equal to the
 * hash of receipt n − 1, a known key id, a valid signature and an id seen nowhere before. An anchor
 * (a head recorded earlier: a `seq`, and optionally its hash) catches a chain cut short at the end.
 */
import { stat } from 'node:fs/promises';
import { codeList } from '../../core/code-list.js';
import type { ValueOf } from '../../core/vocabulary.js';
import { ReceiptSinkUnavailableError } from '../../errors.js';
import { InvalidArgumentError, kindOf, readArgument, readOptions } from '../../invalid-argument.js';
import { readJsonlLines } from '../../storage/jsonl/jsonl-lines.js';
import {
  type ChainHead,
  type Receipt,
  receiptHash,
  receiptShapeProblem,
  signingPayload,
} from '../../storage/receipt.js';
import type { ReceiptSink } from '../../storage/receipt-sink.js';
import type { ReceiptKey } from './signers.js';

/** Why a link is broken. */
export const BrokenReason = {
  /** A line or value that is not a receipt. */
  malformed: 'malformed',
  /** Receipts are missing at the end: a torn last line, or fewer receipts than the anchor. */
  truncated: 'truncated',
  /** The receipt names a key id none of the keys has. */
  unknown_key: 'unknown_key',
  /** The signature does not verify, but the next receipt chains to this one as stored: a wrong key. */
  bad_signature: 'bad_signature',
  /** The receipt was changed after it was chained (its signature fails and the next link disagrees). */
  tampered: 'tampered',
  /** The receipt at this position has another `seq`: receipts were deleted or moved. */
  deleted_or_reordered: 'deleted_or_reordered',
  /** `prev` does not match the previous receipt although `seq` does: the chain forked, or a receipt was replaced. */
  forked: 'forked',
  /** A receipt id appears twice. */
  duplicate: 'duplicate',
} as const;
/** Why a link is broken. */
export type BrokenReason = ValueOf<typeof BrokenReason>;

/** The first broken link of a chain. */
export interface BrokenLink {
  /** The position (the `seq` expected there) where the chain breaks. */
  readonly seq: number;
  readonly reason: BrokenReason;
  readonly detail: string;
  /** The 1-based line of the file, when verifying a file. */
  readonly line?: number;
}

/** A chain head recorded earlier, to catch receipts cut from the end. */
export interface ReceiptAnchor {
  /** The chain must reach at least this `seq`. */
  readonly seq: number;
  /** The hash ({@link receiptHash}) receipt `seq` must have. */
  readonly hash?: string;
}

/** Progress of a long verification. */
export interface VerifyProgress {
  readonly count: number;
  /** Bytes read, and the file's size, when verifying a file. */
  readonly bytes?: number;
  readonly totalBytes?: number;
}

/** Options of {@link verifyReceipts}. */
export interface VerifyReceiptsOptions {
  /** The verification keys (or signers), looked up by key id. */
  readonly keys: ReceiptKey | readonly ReceiptKey[];
  readonly anchor?: ReceiptAnchor;
  /** Called every few thousand receipts, and once at the end. */
  readonly onProgress?: (progress: VerifyProgress) => void;
}

/** The verdict of {@link verifyReceipts}. */
export type VerifyReceiptsResult =
  | { readonly ok: true; readonly count: number; readonly head: ChainHead }
  /** `count` receipts verified before the break. */
  | { readonly ok: false; readonly count: number; readonly firstBroken: BrokenLink };

/** What can be verified: a JSONL file path, a sink, or receipts (parsed values). */
export type ReceiptSource = string | ReceiptSink | Iterable<unknown> | AsyncIterable<unknown>;

interface Item {
  readonly value?: unknown;
  /** Why the item could not be read as JSON. */
  readonly unreadable?: string;
  /** False for a last file line with no newline. */
  readonly terminated: boolean;
  readonly line?: number;
  readonly bytes?: number;
}

async function* fileItems(path: string): AsyncGenerator<Item> {
  for await (const line of readJsonlLines(path)) {
    let value: unknown;
    try {
      value = JSON.parse(line.text);
    } catch (error) {
      yield { unreadable: (error as Error).message, terminated: line.terminated, line: line.number, bytes: line.end };
      continue;
    }
    yield { value, terminated: line.terminated, line: line.number, bytes: line.end };
  }
}

async function* valueItems(values: Iterable<unknown> | AsyncIterable<unknown>): AsyncGenerator<Item> {
  try {
    for await (const value of values) yield { value, terminated: true };
  } catch (error) {
    yield { unreadable: error instanceof Error ? error.message : String(error), terminated: true };
  }
}

function itemsOf(source: ReceiptSource): AsyncGenerator<Item> {
  if (typeof source === 'string') return fileItems(source);
  if ('readAll' in source && typeof source.readAll === 'function') return valueItems(source.readAll());
  return valueItems(source as Iterable<unknown> | AsyncIterable<unknown>);
}

const FN = 'verifyReceipts';

function keyIndex(keys: unknown): Map<string, ReceiptKey> {
  if (keys === undefined) throw new InvalidArgumentError(FN, 'options.keys', 'is required: the verification keys');
  const list: readonly unknown[] = Array.isArray(keys) ? keys : [keys];
  if (list.length === 0) throw new InvalidArgumentError(FN, 'options.keys', 'is empty: pass at least one key');
  return readArgument(FN, 'options.keys', () => {
    const index = new Map<string, ReceiptKey>();
    for (const key of list) {
      const { keyId, verify } = (typeof key === 'object' && key !== null ? key : {}) as Partial<ReceiptKey>;
      if (typeof keyId !== 'string' || typeof verify !== 'function') {
        const problem = `must hold receipt keys (a \`keyId\` and a \`verify\` function), got ${kindOf(key)}`;
        throw new InvalidArgumentError(FN, 'options.keys', problem);
      }
      index.set(keyId, key as ReceiptKey);
    }
    return index;
  });
}

function checkSource(source: unknown): ReceiptSource {
  const ok =
    typeof source === 'string' ||
    (typeof source === 'object' &&
      source !== null &&
      readArgument(
        FN,
        'source',
        () => Symbol.iterator in source || Symbol.asyncIterator in source || 'readAll' in source,
      ));
  if (!ok) {
    const problem = `must be a JSONL file path, a receipt sink or an iterable of receipts, got ${kindOf(source)}`;
    throw new InvalidArgumentError(FN, 'source', problem);
  }
  return source as ReceiptSource;
}

function checkAnchor(anchor: unknown): ReceiptAnchor | undefined {
  if (anchor === undefined) return undefined;
  const { seq, hash } = readOptions(FN, anchor as ReceiptAnchor, ['seq', 'hash'], 'options.anchor');
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0) {
    throw new InvalidArgumentError(FN, 'options.anchor.seq', `must be a non-negative integer, got ${kindOf(seq)}`);
  }
  if (hash !== undefined && typeof hash !== 'string') {
    throw new InvalidArgumentError(FN, 'options.anchor.hash', `must be a string, got ${kindOf(hash)}`);
  }
  return hash === undefined ? { seq } : { seq, hash };
}

async function fileSize(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code ?? 'unknown';
    throw new ReceiptSinkUnavailableError(path, `the file cannot be read (\`${code}\`)`, { cause });
  }
}

function chainsTo(next: Item | undefined, receipt: Receipt): boolean {
  const prev = (next?.value as { prev?: unknown } | undefined)?.prev;
  return typeof prev === 'string' && prev === receiptHash(receipt);
}

/** The first problem of one receipt at its position, or null. */
function checkReceipt(
  item: Item,
  next: Item | undefined,
  expected: ChainHead & { readonly seq: number },
  keys: Map<string, ReceiptKey>,
  ids: Set<string>,
  verifiedKeys: Set<string>,
): { reason: BrokenReason; detail: string } | null {
  const isLast = next === undefined;
  if (item.unreadable !== undefined) {
    return isLast && !item.terminated
      ? { reason: 'truncated', detail: `the last line is incomplete (a torn write): ${item.unreadable}` }
      : { reason: 'malformed', detail: `not JSON: ${item.unreadable}` };
  }
  if (!item.terminated) return { reason: 'truncated', detail: 'the last line has no newline (a torn write)' };
  const problem = receiptShapeProblem(item.value);
  if (problem !== null) return { reason: 'malformed', detail: `not a receipt: ${problem}` };
  const receipt = item.value as Receipt;
  const key = keys.get(receipt.keyId);
  if (key === undefined) {
    return {
      reason: 'unknown_key',
      detail: `key id \`${receipt.keyId}\` is not among the keys (${codeList(keys.keys())})`,
    };
  }
  if (!key.verify(signingPayload(receipt), receipt.signature)) {
    // Tampered or a wrong key? If this key verified an earlier receipt, it is the right key. If the
    // next receipt hashed this one as it is stored, the receipt is unchanged since it was chained.
    if (!verifiedKeys.has(key.keyId) && (isLast || chainsTo(next, receipt))) {
      return {
        reason: 'bad_signature',
        detail: `the signature does not verify under key \`${key.keyId}\`: a wrong key, or signed with another key`,
      };
    }
    return { reason: 'tampered', detail: `the receipt was altered after it was signed: its signature fails` };
  }
  verifiedKeys.add(key.keyId);
  // Before the position checks: a line written twice also sits at the wrong position, and
  // "deleted or reordered" would send an operator looking for receipts that were never lost.
  if (ids.has(receipt.receiptId)) {
    return {
      reason: 'duplicate',
      detail: `receipt id \`${receipt.receiptId}\` (seq ${receipt.seq}) appears twice: a receipt was written again`,
    };
  }
  if (receipt.seq !== expected.seq) {
    return {
      reason: 'deleted_or_reordered',
      detail: `expected seq ${expected.seq}, found seq ${receipt.seq}: receipts were deleted or reordered`,
    };
  }
  if (receipt.prev !== expected.hash) {
    return {
      reason: 'forked',
      detail: `\`prev\` does not match the hash of seq ${expected.seq - 1}: the chain forked or a receipt was replaced`,
    };
  }
  return null;
}

const PROGRESS_EVERY = 2_000;

/**
 * Verify a receipt chain and report the first broken link.
 *
 * A chain is data, so every finding is a result; only a call it cannot use rejects: a source, keys
 * or an anchor of the wrong kind (`InvalidArgumentError`, `invalid_argument`), a file that cannot be
 * read (`ReceiptSinkUnavailableError`).
 *
 * @param source a JSONL file path, a {@link ReceiptSink}, or receipts in chain order.
 * @example
 * const result = await verifyReceipts('.hyphae/receipts.jsonl', { keys: createHmacVerifier({ key, keyId }) });
 * if (!result.ok) throw new Error(`Receipt chain broken at seq ${result.firstBroken.seq}: ${result.firstBroken.reason}`);
 */
export async function verifyReceipts(
  source: ReceiptSource,
  options: VerifyReceiptsOptions,
): Promise<VerifyReceiptsResult> {
  const read = readOptions(FN, options, ['keys', 'anchor', 'onProgress']);
  const keys = keyIndex(read.keys);
  const checked = checkSource(source);
  const anchor = checkAnchor(read.anchor);
  const { onProgress } = read;
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    throw new InvalidArgumentError(FN, 'options.onProgress', `must be a function, got ${kindOf(onProgress)}`);
  }
  const totalBytes = typeof checked === 'string' ? await fileSize(checked) : undefined;
  const progress = (count: number, bytes: number | undefined): void =>
    onProgress?.({
      count,
      ...(bytes === undefined ? {} : { bytes }),
      ...(totalBytes === undefined ? {} : { totalBytes }),
    });
  const ids = new Set<string>();
  const verifiedKeys = new Set<string>();
  let head: ChainHead = { seq: 0, hash: null };
  let anchorHash: string | null = null;
  const items = itemsOf(checked);
  let current = await items.next();
  while (current.done !== true) {
    const item = current.value;
    const following = await items.next();
    const next = following.done === true ? undefined : following.value;
    const expected = { seq: head.seq + 1, hash: head.hash };
    const broken = checkReceipt(item, next, expected, keys, ids, verifiedKeys);
    if (broken !== null) {
      await items.return(undefined);
      progress(head.seq, item.bytes);
      const firstBroken = { seq: expected.seq, ...broken, ...(item.line === undefined ? {} : { line: item.line }) };
      return { ok: false, count: head.seq, firstBroken };
    }
    const receipt = item.value as Receipt;
    ids.add(receipt.receiptId);
    head = { seq: receipt.seq, hash: receiptHash(receipt) };
    if (anchor?.seq === head.seq) anchorHash = head.hash;
    if (head.seq % PROGRESS_EVERY === 0) progress(head.seq, item.bytes);
    current = following;
  }
  progress(head.seq, totalBytes);
  if (anchor !== undefined && head.seq < anchor.seq) {
    const detail = `the anchor expects at least ${anchor.seq} receipts, found ${head.seq}: receipts were cut from the end`;
    return { ok: false, count: head.seq, firstBroken: { seq: head.seq + 1, reason: 'truncated', detail } };
  }
  if (anchor?.hash !== undefined && anchorHash !== anchor.hash) {
    const detail = `receipt seq ${anchor.seq} does not have the anchored hash: the chain was rewritten`;
    return { ok: false, count: anchor.seq - 1, firstBroken: { seq: anchor.seq, reason: 'tampered', detail } };
  }
  return { ok: true, count: head.seq, head };
}
