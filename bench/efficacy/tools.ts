/**
 * The tools of the efficacy scenarios and the fake provider behind them. Every tool body is one
 * request to the provider; the provider counts the bodies that ran and the effects they had
 * (messages sent, money moved). Reads have no effect. A scenario may make the provider flaky, a
 * payment fail before it charges, or the payment tool give up before the provider is done.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';

/** How long the provider takes to move money: long enough for a redelivery to arrive meanwhile. */
export const PAYMENT_MS = 200;

/** The argument schemas (zod 4), from which each framework's tool definition is built. */
export const toolSchemas = {
  lookup_order: z.object({ id: z.string() }),
  poll_status: z.object({ job: z.string() }),
  search_docs: z.object({ q: z.string() }),
  open_doc: z.object({ id: z.string() }),
  send_reminder: z.object({ invoice: z.string() }),
  send_payment: z.object({ invoice: z.string(), amount: z.number() }),
  refund: z.object({ order: z.string(), amount: z.number() }),
} as const;

/** A tool name. */
export type ToolName = keyof typeof toolSchemas;

/** What each tool tells the model it does. */
export const toolDescriptions: Readonly<Record<ToolName, string>> = {
  lookup_order: 'Look up an order by id',
  poll_status: 'Poll the status of a background job',
  search_docs: 'Search the knowledge base',
  open_doc: 'Open a document by id',
  send_reminder: 'Email the customer a payment reminder',
  send_payment: 'Pay an invoice',
  refund: 'Refund an order',
};

/** How a scenario's provider misbehaves. */
export interface ProviderOptions {
  /** The first n `lookup_order` requests fail (a gateway timeout). */
  readonly flakyLookups?: number;
  /** The first n payments are rejected before any money moves. */
  readonly failPaymentsBeforeCharge?: number;
  /** The payment tool gives up after this long (its own timeout); the provider goes on and charges. */
  readonly paymentTimeoutMs?: number;
}

/** One effect at the provider. */
export interface Effect {
  readonly kind: 'email' | 'charge' | 'refund';
  readonly args: unknown;
}

/** A tool body: the arguments in, a JSON-able result out. */
export type ToolBody = (args: unknown) => Promise<unknown>;

/** The fake provider of one scenario run. */
export interface FakeProvider {
  /** The tool bodies the frameworks are given (with the tool's own timeout, where the scenario has one). */
  readonly bodies: Readonly<Record<ToolName, ToolBody>>;
  /** Tool bodies that ran. */
  executions(): number;
  readonly effects: readonly Effect[];
  /** Resolves when the first payment has started (and is still in flight). */
  readonly paymentStarted: Promise<void>;
  /** Resolves once every provider request started so far has finished (a timed-out payment too). */
  idle(): Promise<void>;
}

function field(args: unknown, key: string): unknown {
  return typeof args === 'object' && args !== null ? (args as Record<string, unknown>)[key] : undefined;
}

/** The error of a tool that gave up waiting. */
class ToolTimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

/** `request`, or a {@link ToolTimeoutError} after `ms`: the request itself goes on. */
function withTimeout<T>(request: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new ToolTimeoutError(`send_payment timed out after ${ms} ms`)), ms);
    request.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** A fresh provider: no effects, every job at 0 %. */
export function createProvider(options: ProviderOptions = {}): FakeProvider {
  let executions = 0;
  let failedLookups = 0;
  let failedPayments = 0;
  const effects: Effect[] = [];
  const progress = new Map<string, number>();
  const inFlight = new Set<Promise<unknown>>();
  let startPayment = (): void => undefined;
  const paymentStarted = new Promise<void>((resolve) => {
    startPayment = resolve;
  });

  const body =
    (run: (args: unknown) => unknown | Promise<unknown>): ToolBody =>
    (args) => {
      executions++;
      const request = Promise.resolve().then(() => run(args));
      inFlight.add(request);
      const done = () => inFlight.delete(request);
      request.then(done, done);
      return request;
    };

  const charge = body(async (args) => {
    if (failedPayments < (options.failPaymentsBeforeCharge ?? 0)) {
      failedPayments++;
      throw new Error('Payment gateway unavailable (503): nothing was charged');
    }
    startPayment();
    await sleep(PAYMENT_MS);
    effects.push({ kind: 'charge', args });
    return { status: 'paid', invoice: field(args, 'invoice') };
  });
  const timeout = options.paymentTimeoutMs;

  const bodies: Record<ToolName, ToolBody> = {
    lookup_order: body((args) => {
      if (failedLookups < (options.flakyLookups ?? 0)) {
        failedLookups++;
        throw new Error('Order service timed out (504)');
      }
      return { id: field(args, 'id'), status: 'shipped', carrier: 'DHL' };
    }),
    poll_status: body((args) => {
      const job = String(field(args, 'job'));
      if (job === 'stuck_1') return { job, percent: 40, state: 'running' };
      const percent = Math.min(100, (progress.get(job) ?? 0) + 20);
      progress.set(job, percent);
      return { job, percent, state: percent === 100 ? 'done' : 'running' };
    }),
    search_docs: body((args) => ({ q: field(args, 'q'), hits: ['doc_7', 'doc_9'] })),
    open_doc: body((args) => ({ id: field(args, 'id'), title: 'Refunds', text: 'Refunds within 30 days.' })),
    send_reminder: body((args) => {
      effects.push({ kind: 'email', args });
      return { status: 'sent' };
    }),
    // The tool's own timeout gives up on the request; the provider does not.
    send_payment: timeout === undefined ? charge : (args) => withTimeout(charge(args), timeout),
    refund: body((args) => {
      effects.push({ kind: 'refund', args });
      return { status: 'refunded', order: field(args, 'order') };
    }),
  };

  return {
    bodies,
    executions: () => executions,
    effects,
    paymentStarted,
    async idle() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };
}
