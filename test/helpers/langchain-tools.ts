/**
 * LangChain tools for the adapter tests: each counts how often its body ran.
 */
import { type DynamicStructuredTool, tool } from '@langchain/core/tools';
import { interrupt } from '@langchain/langgraph';
import { z } from 'zod';

/** A tool and the number of times its body ran. */
export interface CountedTool {
  readonly tool: DynamicStructuredTool;
  readonly runs: () => number;
}

/** `send_payment({ amount })`: the side effect under test. */
export function paymentTool(): CountedTool {
  let runs = 0;
  const send = tool(
    async ({ amount }: { amount: number }) => {
      runs++;
      return `paid ${amount}`;
    },
    { name: 'send_payment', description: 'Send a payment', schema: z.object({ amount: z.number() }) },
  );
  return { tool: send as unknown as DynamicStructuredTool, runs: () => runs };
}

/** `lookup({ id })`: a read. */
export function lookupTool(result: (id: string) => unknown = (id) => ({ id, status: 'shipped' })): CountedTool {
  let runs = 0;
  const lookup = tool(
    async ({ id }: { id: string }) => {
      runs++;
      return JSON.stringify(result(id));
    },
    { name: 'lookup', description: 'Look up an order', schema: z.object({ id: z.string() }) },
  );
  return { tool: lookup as unknown as DynamicStructuredTool, runs: () => runs };
}

/** `confirm({})`: asks a human through a LangGraph interrupt, then answers with the resume value. */
export function confirmTool(): CountedTool {
  let runs = 0;
  const confirm = tool(
    async () => {
      runs++;
      const answer: unknown = interrupt('Confirm the payment?');
      return `confirmed: ${String(answer)}`;
    },
    { name: 'confirm', description: 'Ask a human to confirm', schema: z.object({}) },
  );
  return { tool: confirm as unknown as DynamicStructuredTool, runs: () => runs };
}

/** `explode({})`: always throws. */
export function failingTool(message = 'gateway timeout'): CountedTool {
  let runs = 0;
  const explode = tool(
    async () => {
      runs++;
      throw new Error(message);
    },
    { name: 'explode', description: 'Always fails', schema: z.object({}) },
  );
  return { tool: explode as unknown as DynamicStructuredTool, runs: () => runs };
}
