/**
 * An in-memory receipt sink, for tests and development.
 */
import { headOf, type Receipt } from './receipt.js';
import type { AppendNextResult, AppendResult, ReceiptSink } from './receipt-sink.js';

/** A {@link ReceiptSink} in memory, with its receipts readable for tests. */
export interface MemoryReceiptSink extends ReceiptSink {
  /** A copy of the stored receipts, in `seq` order. */
  receipts(): Receipt[];
}

/**
 * Create a receipt sink that keeps receipts in memory (lost with the process).
 *
 * @example
 * const sink = createMemoryReceiptSink();
 * const ledger = createLedger({ storage, agentId, policyVersion, receipts: { sink, signer } });
 */
export function createMemoryReceiptSink(): MemoryReceiptSink {
  const stored: Receipt[] = [];
  const ids = new Set<string>();
  let closed = false;

  function assertOpen(): void {
    if (closed) throw new Error('Memory receipt sink is closed');
  }

  return {
    location: 'memory',
    async append(receipt): Promise<AppendResult> {
      assertOpen();
      if (ids.has(receipt.receiptId)) return { appended: false, conflict: 'duplicate' };
      const last = stored.at(-1) ?? null;
      const head = headOf(last);
      if (receipt.seq !== head.seq + 1 || receipt.prev !== head.hash) {
        return { appended: false, conflict: 'head', last: last === null ? null : structuredClone(last) };
      }
      stored.push(structuredClone(receipt));
      ids.add(receipt.receiptId);
      return { appended: true };
    },
    async appendNext(seal): Promise<AppendNextResult> {
      assertOpen();
      const receipt = seal(stored.at(-1) ?? null);
      if (ids.has(receipt.receiptId)) return { appended: false, conflict: 'duplicate' };
      stored.push(structuredClone(receipt));
      ids.add(receipt.receiptId);
      return { appended: true, receipt };
    },
    async last() {
      assertOpen();
      const last = stored.at(-1);
      return last === undefined ? null : structuredClone(last);
    },
    async *readAll() {
      assertOpen();
      for (const receipt of [...stored]) yield structuredClone(receipt);
    },
    receipts: () => stored.map((receipt) => structuredClone(receipt)),
    async close() {
      closed = true;
    },
  };
}
