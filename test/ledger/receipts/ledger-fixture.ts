/**
 * A ledger with receipts over memory storage, a sink that can be made to fail, and what it reported.
 */
import {
  createLedger,
  createMemoryStorage,
  type Ledger,
  type LedgerOptions,
  type LedgerStorage,
  sideEffect,
} from '../../../src/index.js';
import { verifyReceipts } from '../../../src/ledger/receipts/verify-receipts.js';
import type { LedgerEvent } from '../../../src/ledger/types.js';
import { createMemoryReceiptSink, type MemoryReceiptSink } from '../../../src/storage/memory-receipt-sink.js';
import type { Receipt } from '../../../src/storage/receipt.js';
import type { ReceiptSink } from '../../../src/storage/receipt-sink.js';
import { collectingLogger } from '../ledger-helpers.js';
import { hmacPair } from './receipt-helpers.js';

/** A memory sink whose appends throw while `failing` is set. */
export interface FlakySink extends ReceiptSink {
  failing: boolean;
  readonly inner: MemoryReceiptSink;
  receipts(): Receipt[];
}

export function flakySink(inner: MemoryReceiptSink = createMemoryReceiptSink()): FlakySink {
  const sink: FlakySink = {
    failing: false,
    inner,
    location: 'flaky-memory',
    async append(receipt) {
      if (sink.failing) throw new Error('disk full');
      return inner.append(receipt);
    },
    last: () => inner.last(),
    readAll: () => inner.readAll(),
    close: () => inner.close(),
    receipts: () => inner.receipts(),
  };
  return sink;
}

/** A ledger with receipts on, and everything a test wants to look at. */
export function receiptLedger(options: Partial<LedgerOptions> & { storage?: LedgerStorage; sink?: FlakySink } = {}) {
  const keys = hmacPair('k1');
  const sink = options.sink ?? flakySink();
  const logger = collectingLogger();
  const events: LedgerEvent[] = [];
  const { sink: _sink, ...rest } = options;
  const ledger: Ledger = createLedger({
    storage: options.storage ?? createMemoryStorage(),
    agentId: 'agent',
    policyVersion: 'p1',
    receipts: { sink, signer: keys.signer },
    logger,
    onEvent: (event) => events.push(event),
    ...rest,
  });
  return {
    ledger,
    sink,
    keys,
    logger,
    events,
    /** The chain verifies; returns its receipts. */
    async chain(): Promise<Receipt[]> {
      const result = await verifyReceipts(sink.receipts(), { keys: keys.verifier });
      if (!result.ok) throw new Error(`chain broken: ${JSON.stringify(result.firstBroken)}`);
      return sink.receipts();
    },
  };
}

/**
 * An email tool whose body does what the plan says: `ok` (default), `before` (throws before the
 * side effect), `inside` (throws inside it: UNKNOWN), `after` (throws after it).
 */
export function emailTool(ledger: Ledger) {
  const plan: ('ok' | 'before' | 'inside' | 'after')[] = [];
  const state = { runs: 0 };
  const send = ledger.tool({ name: 'send_email', sideEffectClass: 'email' }, async (args: { to: string }) => {
    state.runs++;
    const step = plan.shift() ?? 'ok';
    if (step === 'before') throw new Error('address rejected');
    const id = await sideEffect(() => {
      if (step === 'inside') throw new Error('SMTP timeout');
      return `msg_${state.runs}`;
    });
    if (step === 'after') throw new Error('could not parse the SMTP reply');
    return { to: args.to, id };
  });
  return { plan, state, send };
}
