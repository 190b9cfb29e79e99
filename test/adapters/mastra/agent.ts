/**
 * The Mastra fixtures of the adapter tests: a real `Agent` over a scripted AI SDK model, tools
 * made with `createTool` that count what ran, and the request context that names a run.
 */
import { Agent } from '@mastra/core/agent';
import { RequestContext } from '@mastra/core/request-context';
import { createTool } from '@mastra/core/tools';
import { z } from 'zod';
import { type Step, scriptedModel } from '../../helpers/ai-sdk-model.js';

/** A model answering from the script; its `prompts` are the requests that reached it. */
export type ScriptedModel = ReturnType<typeof scriptedModel>;
export { type Step, scriptedModel };

/** The request context of a named run. */
export function runContext(runId: string, threadId = 'thread-1'): RequestContext {
  return new RequestContext([
    ['threadId', threadId],
    ['runId', runId],
  ]);
}

/** Counting tools: a read, a polling read, a payment (with a delay the test controls) and a refund. */
export function billingTools() {
  const charges: { invoice: string; amount: number; callId: string | undefined }[] = [];
  let lookups = 0;
  let polls = 0;
  let refunds = 0;
  let paymentGate: Promise<void> = Promise.resolve();
  let holding = 0;
  const charging: Promise<void>[] = [];
  let started = () => {};
  const paymentStarted = new Promise<void>((resolve) => {
    started = resolve;
  });
  const lookup_order = createTool({
    id: 'lookup_order',
    description: 'Look up an order',
    inputSchema: z.object({ id: z.string() }),
    execute: async ({ id }) => {
      lookups++;
      return { id, status: 'shipped' };
    },
  });
  const poll_status = createTool({
    id: 'poll_status',
    description: 'Poll a job',
    inputSchema: z.object({ job: z.string() }),
    execute: async ({ job }) => {
      polls++;
      return { job, progress: Math.min(100, polls * 20) };
    },
  });
  // The payment provider: a charge, once started, completes when the test lets it, whether the
  // tool still waits for it or gave up (an abort).
  const charge = async (invoice: string, amount: number, callId: string | undefined) => {
    holding++;
    started();
    await paymentGate;
    holding--;
    charges.push({ invoice, amount, callId });
  };
  const send_payment = createTool({
    id: 'send_payment',
    description: 'Pay an invoice',
    inputSchema: z.object({ invoice: z.string(), amount: z.number() }),
    execute: async ({ invoice, amount }, context) => {
      const charged = charge(invoice, amount, context.agent?.toolCallId);
      charging.push(charged);
      await abortable(charged, context.abortSignal);
      return { paid: invoice };
    },
  });
  const refund = createTool({
    id: 'refund',
    description: 'Refund an order',
    inputSchema: z.object({ order: z.string(), amount: z.number() }),
    execute: async () => {
      refunds++;
      return { refunded: true };
    },
  });
  return {
    tools: { lookup_order, poll_status, send_payment, refund },
    charges,
    lookups: () => lookups,
    polls: () => polls,
    refunds: () => refunds,
    /** True while a payment is held. */
    holdingPayment: () => holding > 0,
    /** Settles once the first payment reached the provider. */
    paymentStarted,
    /** Every charge started so far, settled. */
    settled: () => Promise.all(charging),
    /** Hold every payment until the returned function is called. */
    holdPayments(): () => void {
      let release = () => {};
      paymentGate = new Promise<void>((resolve) => {
        release = resolve;
      });
      return release;
    },
  };
}

/** `work`, or the abort of `signal` if it comes first. */
function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

type AgentConfig = ConstructorParameters<typeof Agent>[0];

/** The settings the tests give an agent. */
export interface TestAgentSettings {
  readonly model: ScriptedModel;
  readonly tools?: NonNullable<AgentConfig['tools']>;
  readonly inputProcessors?: readonly unknown[];
  readonly outputProcessors?: readonly unknown[];
}

/** A Mastra agent with these settings (and any processors `withGuards` added) and the defaults for the rest. */
export function agentOf(settings: TestAgentSettings): Agent {
  // Mastra declares the provider types of its own bundled copy; the AI SDK's mock is the same model at runtime.
  const model = settings.model as unknown as AgentConfig['model'];
  const { inputProcessors, outputProcessors, ...rest } = settings;
  return new Agent({
    id: 'billing',
    name: 'billing',
    instructions: 'You help with billing',
    ...rest,
    model,
    ...(inputProcessors === undefined
      ? {}
      : { inputProcessors: inputProcessors as NonNullable<AgentConfig['inputProcessors']> }),
    ...(outputProcessors === undefined
      ? {}
      : { outputProcessors: outputProcessors as NonNullable<AgentConfig['outputProcessors']> }),
  });
}

/** `n` scripted turns of the same call, each with a new call id. */
export function repeating(n: number, name: string, input: unknown): Step[] {
  return Array.from({ length: n }, (_, i) => ({ calls: [{ id: `call_${i}`, name, input }] }));
}
