/**
 * The receipt chain as the dashboard shows it: verified with `verifyReceipts`, indexed by
 * transition key, and read again only when the chain's head has moved.
 *
 * A sink offers no lookup by transition, so finding a transition's receipts means reading the
 * chain; verifying it means reading it anyway. One pass does both, and its result is kept until
 * `sink.last()` names another head, or for at most a minute.
 */
import { type Clock, systemClock } from '../core/clock.js';
import type { ReceiptKey } from '../ledger/receipts/signers.js';
import { type VerifyReceiptsResult, verifyReceipts } from '../ledger/receipts/verify-receipts.js';
import { isReceipt, type Receipt, receiptHash } from '../storage/receipt.js';
import type { ReceiptSink } from '../storage/receipt-sink.js';

/** Where the receipts are and the keys that check them. */
export interface DashboardReceipts {
  readonly sink: ReceiptSink;
  readonly keys: ReceiptKey | readonly ReceiptKey[];
}

/** The chain at one head. */
export interface ChainView {
  readonly location: string;
  readonly verdict: VerifyReceiptsResult;
  /** Receipts by transition key, in chain order (those past a break included, marked by seq). */
  readonly byKey: ReadonlyMap<string, readonly Receipt[]>;
  /** The head's hash when read (null for an empty chain, undefined when the sink refused its tail). */
  readonly head: string | null | undefined;
}

/** A cached view of one chain. */
export interface ReceiptChain {
  /** The chain as it is now: verified again only when its head has changed. */
  view(): Promise<ChainView>;
}

function index(receipts: Iterable<Receipt>): Map<string, Receipt[]> {
  const byKey = new Map<string, Receipt[]>();
  for (const receipt of receipts) {
    const list = byKey.get(receipt.transitionKey);
    if (list === undefined) byKey.set(receipt.transitionKey, [receipt]);
    else list.push(receipt);
  }
  return byKey;
}

async function readView(receipts: DashboardReceipts, head: string | null | undefined): Promise<ChainView> {
  const seen: Receipt[] = [];
  async function* tee(): AsyncGenerator<unknown> {
    for await (const value of receipts.sink.readAll()) {
      if (isReceipt(value)) seen.push(value);
      yield value;
    }
  }
  const verdict = await verifyReceipts(tee(), { keys: receipts.keys });
  if (!verdict.ok) {
    // Verification stops at the break; the receipts after it are still shown, as unverified.
    seen.length = 0;
    try {
      for await (const value of receipts.sink.readAll()) if (isReceipt(value)) seen.push(value);
    } catch {
      // A sink that stops reading at the break shows what it gave.
    }
  }
  return { location: receipts.sink.location, verdict, byKey: index(seen), head };
}

/** How long a verdict is kept while the head stays put: an edit in the middle of the chain moves no head. */
export const CHAIN_MAX_AGE_MS = 60_000;

async function headOf(sink: ReceiptSink): Promise<string | null | undefined> {
  try {
    const last = await sink.last();
    return last === null ? null : receiptHash(last);
  } catch {
    // A sink that refuses its own tail (a broken last link) is read in full: the verdict says where.
    return undefined;
  }
}

/** Keep the verified view of a chain, reading it again when its head moves (or the verdict is old). */
export function createReceiptChain(receipts: DashboardReceipts, clock: Clock = systemClock): ReceiptChain {
  let cached: (ChainView & { readonly at: number }) | undefined;
  let reading: Promise<ChainView> | undefined;
  return {
    async view() {
      const head = await headOf(receipts.sink);
      const fresh = cached !== undefined && clock.now() - cached.at < CHAIN_MAX_AGE_MS;
      if (cached !== undefined && head !== undefined && cached.head === head && fresh) return cached;
      if (reading === undefined) {
        reading = readView(receipts, head).finally(() => {
          reading = undefined;
        });
      }
      const view = await reading;
      cached = { ...view, at: clock.now() };
      return view;
    },
  };
}
