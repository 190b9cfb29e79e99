/**
 * A `ToolLoopAgent` under hyphae, guarded in one call (`withGuards`): a scripted model (no
 * network) asks to pay an invoice; the run is then retried with the same messages, as a worker
 * does after a crash, and the model repeats the same tool call id. The ledger returns the first
 * result: the invoice is paid once.
 *
 * Run: npx tsx examples/ai-sdk-guard-tools.ts
 */
import { ToolLoopAgent, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
// Published as `hyphae/ai-sdk` and `hyphae`.
import { createGuardPipeline, withGuards } from '../src/adapters/ai-sdk.js';
import { budgetFuse, createFuseBox, createLedger, createMemoryStorage } from '../src/index.js';

const usage = {
  inputTokens: { total: 40, noCache: 40, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 10, text: 10, reasoning: 0 },
};
function scriptedModel() {
  let step = 0;
  return new MockLanguageModelV4({
    doGenerate: async () =>
      step++ === 0
        ? {
            content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'pay_invoice', input: '{"invoice":42}' }],
            finishReason: { unified: 'tool-calls', raw: undefined },
            usage,
            warnings: [],
          }
        : {
            content: [{ type: 'text', text: 'Invoice 42 is paid.' }],
            finishReason: { unified: 'stop', raw: undefined },
            usage,
            warnings: [],
          },
  });
}

const payments: number[] = [];
const payInvoice = tool({
  description: 'Pay an invoice',
  inputSchema: z.object({ invoice: z.number() }),
  execute: async ({ invoice }) => {
    payments.push(invoice);
    return { paymentId: `pay_${payments.length}` };
  },
});

const pipeline = createGuardPipeline({
  ledger: createLedger({ storage: createMemoryStorage(), agentId: 'billing', policyVersion: '2026.07.1' }),
  fuses: createFuseBox({ budget: budgetFuse({ maxTokens: 20_000 }) }),
  tools: { pay_invoice: { sideEffectClass: 'payment' } },
});
const guards = pipeline.forRun({ threadId: 'invoice-42', runId: 'run-1' });

for (const attempt of [1, 2]) {
  // The agent keeps its own limit of 20 steps: `withGuards` adds no stop condition.
  const agent = new ToolLoopAgent({
    ...withGuards(guards, { model: scriptedModel(), tools: { pay_invoice: payInvoice } }),
    maxOutputTokens: 256,
  });
  const result = await agent.generate({ prompt: 'Pay invoice 42' });
  console.log(
    `attempt ${attempt}: ${result.text} (tool results: ${JSON.stringify(result.steps[0]?.toolResults.map((r) => r.output))})`,
  );
}
console.log(`payments made: ${payments.length}`);
console.log(`budget: ${JSON.stringify(pipeline.fuses?.forRun('run-1').stats().budget)}`);
