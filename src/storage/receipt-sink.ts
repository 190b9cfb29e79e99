/**
 * The interface every receipt sink implements: a conditional append on the chain head, no policy.
 */
import type { Receipt } from './receipt.js';

/** What {@link ReceiptSink.append} did. */
export type AppendResult =
  | { readonly appended: true }
  /** A receipt with this `receiptId` is already on the chain; nothing was appended. */
  | { readonly appended: false; readonly conflict: 'duplicate' }
  /**
   * The receipt does not extend the current head (another writer appended first, or `seq`/`prev`
   * are wrong); nothing was appended. `last` is the head now.
   */
  | { readonly appended: false; readonly conflict: 'head'; readonly last: Receipt | null };

/** What {@link ReceiptSink.appendNext} did. */
export type AppendNextResult =
  | { readonly appended: true; readonly receipt: Receipt }
  | { readonly appended: false; readonly conflict: 'duplicate' };

/**
 * Where receipts go. A sink stores signed receipts in `seq` order and never forks the chain:
 * `append` is one atomic step that checks the receipt extends the head and that its id is new.
 * Sinks do not sign and hold no policy; {@link createReceiptWriter} builds and signs receipts.
 */
export interface ReceiptSink {
  /** Where the receipts live, for messages (`jsonl:/var/log/receipts.jsonl`, `sqlite:…`, `memory`). */
  readonly location: string;
  /**
   * Append `receipt` when its `seq` is the head's plus one, its `prev` is the head's hash, and no
   * stored receipt has its `receiptId`. Durable before it resolves.
   */
  append(receipt: Receipt): Promise<AppendResult>;
  /**
   * Optional: under the sink's own lock, read the head, build the receipt with `seal(last)` and
   * append it (or answer `duplicate`). Sinks that can hold a lock while the writer signs implement
   * it; writers then never lose the head to one another, so busy writers cannot starve a slow one.
   */
  appendNext?(seal: (last: Receipt | null) => Receipt): Promise<AppendNextResult>;
  /** The last receipt, or null for an empty chain. */
  last(): Promise<Receipt | null>;
  /** Every receipt in `seq` order, as stored (for verification and export). */
  readAll(): AsyncIterable<Receipt>;
  /** Release what the sink opened; safe to call twice. */
  close(): Promise<void>;
}
