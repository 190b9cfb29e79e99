/**
 * A Mastra agent with guarded tools and the hyphae processor, with a scripted model (no network,
 * no key).
 *
 * 1. A polling job needs 6 steps: past Mastra's default cap of 5, which would end the run with no
 *    answer. The guards stop real loops, so the cap is raised to 25 and the job finishes.
 * 2. A model that repeats the same payment under the same call id pays once: the second call is
 *    answered from the ledger.
 * 3. A model stuck on one payment pays once (the repeat is answered from the ledger) and is stopped
 *    by the loop fuse at its third call; the run ends with no further model request, its text is
 *    the note of the refusal, and `stoppedVerdictOf(result)` says why.
 *
 * Run: npx tsx examples/mastra-agent.ts
 */
import { Agent } from '@mastra/core/agent';
import { RequestContext } from '@mastra/core/request-context';
import { createTool } from '@mastra/core/tools';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
// Published as `hyphae/mastra` and `hyphae`.
import { createGuardPipeline, stoppedVerdictOf, withGuards } from '../src/adapters/mastra.js';
import { createFuseBox, createLedger, createMemoryStorage, loopFuse } from '../src/index.js';

type Turn = { readonly call: string; readonly id: string; readonly input: object } | { readonly text: string };

/** A model that answers from a script: one tool call or a final text per request. */
function scriptedModel(turns: Turn[]) {
  const usage = {
    inputTokens: { total: 40, noCache: 40, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 10, text: 10, reasoning: 0 },
  };
  const model = new MockLanguageModelV4({
    doGenerate: async () => {
      const turn = turns.shift() ?? { text: '(no more turns)' };
      if ('text' in turn) {
        return {
          content: [{ type: 'text', text: turn.text }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage,
          warnings: [],
        };
      }
      const call = {
        type: 'tool-call' as const,
        toolCallId: turn.id,
        toolName: turn.call,
        input: JSON.stringify(turn.input),
      };
      return { content: [call], finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [] };
    },
  });
  // Mastra declares the provider types of its own bundled copy; the mock is the same model at runtime.
  return model as unknown as ConstructorParameters<typeof Agent>[0]['model'];
}

let progress = 0;
const charges: string[] = [];
const tools = {
  poll_status: createTool({
    id: 'poll_status',
    description: 'Poll an export job',
    inputSchema: z.object({ job: z.string() }),
    execute: async ({ job }) => {
      progress = Math.min(100, progress + 20);
      return { job, progress };
    },
  }),
  send_payment: createTool({
    id: 'send_payment',
    description: 'Pay an invoice',
    inputSchema: z.object({ invoice: z.string(), amount: z.number() }),
    execute: async ({ invoice }) => {
      charges.push(invoice);
      return { paid: invoice };
    },
  }),
};

const pipeline = createGuardPipeline({
  ledger: createLedger({ storage: createMemoryStorage(), agentId: 'billing', policyVersion: '1' }),
  fuses: createFuseBox({ loop: loopFuse({ repeatThreshold: 3, allowances: { poll_status: 20 } }) }),
  tools: {
    poll_status: { sideEffectClass: 'read' },
    send_payment: { sideEffectClass: 'payment', ledger: { identity: 'intent' } },
  },
});

function agentWith(turns: Turn[]): Agent {
  return new Agent(
    withGuards(pipeline, {
      id: 'billing',
      name: 'billing',
      instructions: 'You help with billing',
      model: scriptedModel(turns),
      tools,
    }),
  );
}
const runContext = (runId: string) => new RequestContext([['runId', runId]]);
const poll = (i: number): Turn => ({ call: 'poll_status', id: `call_poll_${i}`, input: { job: 'export_1' } });
const pay: Turn = { call: 'send_payment', id: 'call_pay', input: { invoice: 'inv_42', amount: 100 } };

// 1. Six steps, under a cap the guards make safe to raise.
const polled = await agentWith([...[0, 1, 2, 3, 4].map(poll), { text: 'The export is done.' }]).generate('Export', {
  maxSteps: 25,
  requestContext: runContext('export-1'),
});
console.log('1. polling job:', polled.text);

// 2. The same payment twice under one call id: one charge.
const paid = await agentWith([pay, pay, { text: 'Invoice 42 is paid.' }]).generate('Pay invoice 42', {
  requestContext: runContext('pay-42'),
});
console.log('2. payment:', paid.text, `(${charges.length} charge)`);

// 3. A stuck model: one charge, stopped at the third call, no further model request.
const stuck = Array.from({ length: 30 }, () => ({
  call: 'send_payment',
  id: 'call_again',
  input: { invoice: 'inv_7', amount: 5 },
}));
const stopped = await agentWith(stuck).generate('Pay invoice 7', { maxSteps: 25, requestContext: runContext('pay-7') });
console.log('3. loop:', stoppedVerdictOf(stopped)?.code, `(${charges.length} charges in all):`, stopped.text);
