/**
 * An `@openai/agents` agent with guarded tools, with a scripted model (no network, no key).
 *
 * 1. A payment needs approval. The app saves the run state, approves, and the run crashes after
 *    the payment ran (the next model request fails). It restores the saved state, approves again
 *    and resumes: the SDK runs the tool call again, and the ledger returns the recorded payment.
 * 2. A refund the agent was never granted is answered with a refusal that says it did NOT happen.
 * 3. A history with a function call that never got its result is repaired before the model sees
 *    it (`callModelInputFilter`).
 * 4. A token budget is checked before each model request (`guardModel`): the request that could
 *    cross it is not sent, and the run ends with the refusal's note as its final answer.
 *
 * Run: npx tsx examples/openai-agents-guardrails.ts
 */
import {
  Agent,
  type AgentInputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
  RunState,
  run,
  setTracingDisabled,
  tool,
  Usage,
} from '@openai/agents';
import { z } from 'zod';
// Published as `hyphae/openai-agents` and `hyphae`.
import {
  createGuardPipeline,
  guardAgentTools,
  guardModel,
  hyphaeCallModelInputFilter,
  stoppedVerdictOf,
} from '../src/adapters/openai-agents.js';
import { budgetFuse, createFuseBox, createLedger, createMemoryStorage, permissionFuse } from '../src/index.js';

setTracingDisabled(true);

type Turn = ModelResponse['output'] | Error;

/** A model that answers from a script: function calls, text, or a failed request. */
class ScriptedModel implements Model {
  readonly #turns: Turn[];
  constructor(turns: Turn[]) {
    this.#turns = turns;
  }
  async getResponse(_request: ModelRequest): Promise<ModelResponse> {
    const turn = this.#turns.shift() ?? [];
    if (turn instanceof Error) throw turn;
    return { usage: new Usage({ requests: 1, inputTokens: 40, outputTokens: 10, totalTokens: 50 }), output: turn };
  }
  // biome-ignore lint/correctness/useYield: this example never streams
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('not streamed');
  }
}

const functionCall = (callId: string, name: string, args: object) => ({
  type: 'function_call' as const,
  callId,
  name,
  arguments: JSON.stringify(args),
  status: 'completed' as const,
});
const say = (text: string) => [
  {
    type: 'message' as const,
    role: 'assistant' as const,
    status: 'completed' as const,
    content: [{ type: 'output_text' as const, text }],
  },
];

let payments = 0;
const sendPayment = tool({
  name: 'send_payment',
  description: 'Pay an invoice',
  parameters: z.object({ invoice: z.string(), amount: z.number() }),
  needsApproval: true,
  execute: async ({ invoice, amount }) => {
    payments++;
    return `paid ${amount} for ${invoice}`;
  },
});
const issueRefund = tool({
  name: 'issue_refund',
  description: 'Refund an invoice',
  parameters: z.object({ invoice: z.string() }),
  execute: async () => 'refunded',
});

const pipeline = createGuardPipeline({
  ledger: createLedger({ storage: createMemoryStorage(), agentId: 'billing', policyVersion: '2026.07.1' }),
  fuses: createFuseBox({
    permission: permissionFuse({ granted: ['pay'], tools: { send_payment: ['pay'], issue_refund: ['refund'] } }),
  }),
  tools: { send_payment: { sideEffectClass: 'payment' } },
});
const tools = guardAgentTools([sendPayment, issueRefund], pipeline);
// The run scope travels with the run state: a resume in another process lands on the same transitions.
const context = { threadId: 'billing-thread-1', runId: 'pay-inv_7' };

// 1. Approve, crash after the payment, resume from the saved state.
const model = new ScriptedModel([
  [functionCall('call_pay', 'send_payment', { invoice: 'inv_7', amount: 120 })],
  new Error('provider unavailable'),
  [functionCall('call_refund', 'issue_refund', { invoice: 'inv_6' })],
  say('Invoice inv_7 is paid. I cannot refund inv_6 myself.'),
]);
const agent = new Agent({ name: 'billing', instructions: 'Pay invoices.', model, tools });
const paused = await run(agent, 'Pay inv_7 and refund inv_6', { context });
const saved = paused.state.toString();
const [approval] = paused.interruptions;
if (approval !== undefined) paused.state.approve(approval);
await run(agent, paused.state).catch((error: Error) => console.log(`run crashed: ${error.message}`));
console.log(`payment body ran ${payments} time(s) before the resume`);

const restored = await RunState.fromString(agent, saved);
for (const item of restored.getInterruptions()) restored.approve(item);
const resumed = await run(agent, restored);
console.log(`final output: ${String(resumed.finalOutput)}`);
console.log(`payment body ran ${payments} time(s) in all`);
for (const item of resumed.history) {
  if (item.type === 'function_call_result') {
    const output = item.output as { text?: string } | string;
    console.log(`  ${item.callId}: ${typeof output === 'string' ? output : output.text}`);
  }
}

// 3. A history whose last function call never got a result.
const history: AgentInputItem[] = [
  { role: 'user', content: 'Pay inv_8' },
  functionCall('call_lost', 'send_payment', { invoice: 'inv_8', amount: 30 }),
  { role: 'user', content: 'Did that go through?' },
];
const seen: ModelRequest[] = [];
const lookingModel: Model = {
  async getResponse(request) {
    seen.push(request);
    return { usage: new Usage(), output: say('I have no record that inv_8 was paid.') };
  },
  // biome-ignore lint/correctness/useYield: this example never streams
  async *getStreamedResponse() {
    throw new Error('not streamed');
  },
};
await run(new Agent({ name: 'billing', model: lookingModel, tools }), history, {
  context: { threadId: 'billing-thread-2', runId: 'check-inv_8' },
  callModelInputFilter: hyphaeCallModelInputFilter(pipeline),
});
const sent = Array.isArray(seen[0]?.input) ? seen[0].input : [];
const synthesized = sent.find((item) => item.type === 'function_call_result');
console.log(
  `the model was told: ${JSON.stringify(synthesized && 'output' in synthesized ? synthesized.output : null)}`,
);

// 4. A token budget, checked before each model request.
let requests = 0;
const lookupInvoice = tool({
  name: 'lookup_invoice',
  description: 'Look an invoice up',
  parameters: z.object({ invoice: z.string() }),
  execute: async ({ invoice }) => `${invoice}: open`,
});
// Every answer costs 600 tokens and asks for one more invoice.
const spendingModel: Model = {
  async getResponse() {
    requests++;
    return {
      usage: new Usage({ requests: 1, inputTokens: 550, outputTokens: 50, totalTokens: 600 }),
      output: [functionCall(`call_${requests}`, 'lookup_invoice', { invoice: `inv_${requests}` })],
    };
  },
  // biome-ignore lint/correctness/useYield: this example never streams
  async *getStreamedResponse() {
    throw new Error('not streamed');
  },
};
const budgeted = createGuardPipeline({
  fuses: createFuseBox({ budget: budgetFuse({ maxTokens: 1_500 }) }),
  defaultMaxOutputTokens: 200,
});
// The model and the tools guard the same run: the one the run's context names.
const audit = { threadId: 'billing-thread-3', runId: 'audit-invoices' };
const auditor = new Agent({
  name: 'auditor',
  model: guardModel(spendingModel, budgeted, { ...audit, model: 'gpt-4o-mini' }),
  tools: guardAgentTools([lookupInvoice], budgeted),
});
const audited = await run(auditor, 'Audit every open invoice', { context: audit });
const verdict = stoppedVerdictOf(audited.output.at(-1));
console.log(`the budget stopped the run after ${requests} model requests (\`${verdict?.code}\`)`);
