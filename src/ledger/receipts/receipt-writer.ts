/**
 * The receipt writer: places drafts on the chain (seq, prev, key id), signs them and appends them.
 *
 * A sink with `appendNext` seals each receipt under its own lock, so writers queue instead of racing.
 * Otherwise two writers (two processes on one sink) race on the sink's conditional append:
 *
 *   A: head 41 → signs seq 42 (prev = hash 41) → append ─► appended
 *   B: head 41 → signs seq 42 (prev = hash 41) → append ─► conflict 'head', last = A's 42
 *   B: re-signs as seq 43 (prev = hash of A's 42) → append ─► appended
 *
 * Within one process appends are queued, so they never race each other.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { GuardError, ReceiptSinkUnavailableError } from '../../errors.js';
import { objectArgument, optionsOf, readArgument } from '../../invalid-argument.js';
import {
  type ChainHead,
  headOf,
  RECEIPT_SCHEMA,
  type Receipt,
  type ReceiptDraft,
  receiptShapeProblem,
  signingPayload,
  type UnsignedReceipt,
} from '../../storage/receipt.js';
import type { ReceiptSink } from '../../storage/receipt-sink.js';
import type { ReceiptSigner } from './signers.js';

/** What {@link ReceiptWriter.write} did. */
export type WriteResult =
  | { readonly status: 'appended'; readonly receipt: Receipt }
  /** The chain already holds a receipt with this id (an earlier attempt, or another process, wrote it). */
  | { readonly status: 'duplicate'; readonly receiptId: string };

/** Places drafts on the chain, signed. */
export interface ReceiptWriter {
  readonly sink: ReceiptSink;
  readonly signer: ReceiptSigner;
  /** Sign `draft` as the next receipt and append it; a draft whose id is on the chain is not appended again. */
  write(draft: ReceiptDraft): Promise<WriteResult>;
  /** Wait for queued writes, then close the sink. */
  close(): Promise<void>;
}

/** Options of {@link createReceiptWriter}. */
export interface ReceiptWriterOptions {
  readonly sink: ReceiptSink;
  readonly signer: ReceiptSigner;
  /** How many times an append that lost the head to another writer is retried. Default 50. */
  readonly maxAttempts?: number;
}

/**
 * Sign a draft as the receipt after `head`. A draft that would not make a well-formed receipt (a
 * record with a missing field) is refused here, so it can never poison the chain for its readers.
 */
export function sealReceipt(draft: ReceiptDraft, head: ChainHead, signer: ReceiptSigner): Receipt {
  objectArgument('sealReceipt', 'draft', draft);
  objectArgument('sealReceipt', 'head', head);
  objectArgument('sealReceipt', 'signer', signer);
  // Read once here: a getter that throws is the caller's argument, not a signing failure.
  const copy = readArgument('sealReceipt', 'draft', () => ({ ...draft }));
  const at = readArgument('sealReceipt', 'head', () => ({ seq: head.seq, hash: head.hash }));
  return seal(copy, at, signer);
}

function seal(draft: ReceiptDraft, head: ChainHead, signer: ReceiptSigner): Receipt {
  const unsigned: UnsignedReceipt = {
    ...draft,
    schema: RECEIPT_SCHEMA,
    seq: head.seq + 1,
    prev: head.hash,
    keyId: signer.keyId,
  };
  const receipt = { ...unsigned, signature: signer.sign(signingPayload(unsigned)) };
  const problem = receiptShapeProblem(receipt);
  if (problem !== null) {
    throw new GuardError('receipt_invalid', `Receipt \`${draft.receiptId}\` was not written: ${problem}`);
  }
  return receipt;
}

/**
 * Create a writer over a sink and a signer.
 *
 * @example
 * const writer = createReceiptWriter({ sink: createMemoryReceiptSink(), signer });
 * await writer.write(draft); // { status: 'appended', receipt: { seq: 1, prev: null, … } }
 */
export function createReceiptWriter(given: ReceiptWriterOptions): ReceiptWriter {
  const options = optionsOf('createReceiptWriter', given);
  const { sink, signer } = options;
  const maxAttempts = options.maxAttempts ?? 50;
  /** The head as this writer last saw it; refreshed from the sink when another writer moved it. */
  let head: ChainHead | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  async function writeNow(draft: ReceiptDraft): Promise<WriteResult> {
    if (sink.appendNext !== undefined) {
      // The sink seals under its own lock: the head cannot move between reading and appending.
      const result = await sink.appendNext((last) => sealReceipt(draft, headOf(last), signer));
      if (!result.appended) return { status: 'duplicate', receiptId: draft.receiptId };
      head = headOf(result.receipt);
      return { status: 'appended', receipt: result.receipt };
    }
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      head ??= headOf(await sink.last());
      const receipt = sealReceipt(draft, head, signer);
      const result = await sink.append(receipt);
      if (result.appended) {
        head = headOf(receipt);
        return { status: 'appended', receipt };
      }
      if (result.conflict === 'duplicate') return { status: 'duplicate', receiptId: draft.receiptId };
      head = headOf(result.last);
      // Several writers on one sink: a short, jittered pause spreads their next attempts.
      if (attempt > 2) await sleep(Math.floor(Math.random() * Math.min(50, attempt * 5)));
    }
    throw new ReceiptSinkUnavailableError(
      sink.location,
      `the append of receipt \`${draft.receiptId}\` lost the chain head to other writers ${maxAttempts} times`,
    );
  }

  return {
    sink,
    signer,
    write(draft) {
      const run = queue.then(() => writeNow(draft));
      // A failed append forgets the head: the sink may have moved on, or taken the write after all.
      queue = run.catch(() => {
        head = undefined;
      });
      return run;
    },
    async close() {
      await queue;
      await sink.close();
    },
  };
}
