/**
 * The tools of the efficacy scenarios and the fake provider behind them. Every tool body is one
 * request to the provider; the provider counts the bodies that ran and the effects they had
 * (messages sent, money moved). Reads have no effect.
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

export const toolDescriptions: Readonly<Record<ToolName, string>> = {
  lookup_order: 'Look up an order by id',
  poll_status: 'Poll the status of a background job',
  search_docs: 'Search the knowledge base',
  open_doc: 'Open a document by id',
  send_reminder: 'Email the customer a payment reminder',
  send_payment: 'Pay an invoice',
  refund: 'Refund an order',
};

/** One effect at the provider. */
export interface Effect {
  readonly kind: 'email' | 'charge' | 'refund';
  readonly args: unknown;
}

/** A tool body: the arguments in, a JSON-able result out. */
export type ToolBody = (args: unknown) => Promise<unknown>;

/** The fake provider of one scenario run. */
export interface FakeProvider {
  readonly bodies: Readonly<Record<ToolName, ToolBody>>;
  /** Tool bodies that ran. */
  executions(): number;
  readonly effects: readonly Effect[];
  /** Resolves when the first payment has started (and is still in flight). */
  readonly paymentStarted: Promise<void>;
}

function field(args: unknown, key: string): unknown {
  return typeof args === 'object' && args !== null ? (args as Record<string, unknown>)[key] : undefined;
}

/** A fresh provider: no effects, every job at 0 %. */
export function createProvider(): FakeProvider {
  let executions = 0;
  const effects: Effect[] = [];
  const progress = new Map<string, number>();
  let startPayment = (): void => undefined;
  const paymentStarted = new Promise<void>((resolve) => {
    startPayment = resolve;
  });

  const body =
    (run: (args: unknown) => unknown | Promise<unknown>): ToolBody =>
    async (args) => {
      executions++;
      return run(args);
    };

  const bodies: Record<ToolName, ToolBody> = {
    lookup_order: body((args) => ({ id: field(args, 'id'), status: 'shipped', carrier: 'DHL' })),
    poll_status: body((args) => {
      const job = String(field(args, 'job'));
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
    send_payment: body(async (args) => {
      startPayment();
      await sleep(PAYMENT_MS);
      effects.push({ kind: 'charge', args });
      return { status: 'paid', invoice: field(args, 'invoice') };
    }),
    refund: body((args) => {
      effects.push({ kind: 'refund', args });
      return { status: 'refunded', order: field(args, 'order') };
    }),
  };

  return { bodies, executions: () => executions, effects, paymentStarted };
}
