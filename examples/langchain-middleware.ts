/**
 * A LangChain v1 agent guarded by `hyphaeMiddleware`, with a scripted chat model (no network, no
 * key). In one turn the model pays an invoice, asks a human to confirm (a LangGraph interrupt) and
 * tries a refund it was never granted. The refund is answered with a refusal that says it did NOT
 * happen; the run pauses at the interrupt; on resume LangGraph re-runs the tool step, and the
 * ledger returns the recorded payment instead of paying again.
 *
 * Run: npx tsx examples/langchain-middleware.ts
 */
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { Command, interrupt, MemorySaver } from '@langchain/langgraph';
import { createAgent, tool } from 'langchain';
import { z } from 'zod';
// Published as `hyphae/langchain` and `hyphae`.
import { createGuardPipeline, hyphaeMiddleware } from '../src/adapters/langchain.js';
import { createFuseBox, createLedger, createMemoryStorage, permissionFuse } from '../src/index.js';

/** A chat model that answers from a script. */
class ScriptedModel extends BaseChatModel {
  readonly model = 'gpt-4o-mini';
  readonly #script: AIMessage[];
  constructor(script: AIMessage[]) {
    super({});
    this.#script = script;
  }
  _llmType(): string {
    return 'scripted';
  }
  override bindTools(): this {
    return this;
  }
  async _generate(_messages: BaseMessage[]): Promise<ChatResult> {
    const message = this.#script.shift() ?? new AIMessage('(script exhausted)');
    return { generations: [{ text: String(message.content), message }] };
  }
}

let payments = 0;
const sendPayment = tool(
  async ({ invoice, amount }: { invoice: string; amount: number }) => {
    payments++;
    return `paid ${amount} for ${invoice}`;
  },
  {
    name: 'send_payment',
    description: 'Pay an invoice',
    schema: z.object({ invoice: z.string(), amount: z.number() }),
  },
);
const confirm = tool(async () => `human says: ${String(interrupt('Confirm the payment?'))}`, {
  name: 'confirm',
  description: 'Ask a human to confirm',
  schema: z.object({}),
});
const issueRefund = tool(async () => 'refunded', {
  name: 'issue_refund',
  description: 'Refund an invoice',
  schema: z.object({ invoice: z.string() }),
});

const guards = createGuardPipeline({
  ledger: createLedger({ storage: createMemoryStorage(), agentId: 'billing', policyVersion: '2026.07.1' }),
  fuses: createFuseBox({
    permission: permissionFuse({
      granted: ['pay', 'ask'],
      tools: { send_payment: ['pay'], confirm: ['ask'], issue_refund: ['refund'] },
    }),
  }),
  tools: {
    send_payment: { sideEffectClass: 'payment', schema: { invoice: { type: 'string' }, amount: { type: 'number' } } },
    // Its body interrupts, so it must be free to run again when the run resumes.
    confirm: { sideEffectClass: 'read', ledger: false },
  },
});

const agent = createAgent({
  model: new ScriptedModel([
    new AIMessage({
      content: '',
      tool_calls: [
        { id: 'call_pay', name: 'send_payment', args: { invoice: 'inv_7', amount: 120 } },
        { id: 'call_confirm', name: 'confirm', args: {} },
        { id: 'call_refund', name: 'issue_refund', args: { invoice: 'inv_6' } },
      ],
    }),
    new AIMessage('Invoice inv_7 is paid and confirmed. I cannot refund inv_6 myself.'),
  ]),
  tools: [sendPayment, confirm, issueRefund],
  checkpointer: new MemorySaver(),
  // One tool step for all calls of a turn: the interrupt re-runs its siblings on resume.
  version: 'v1',
  middleware: [hyphaeMiddleware(guards)],
});

const thread = { configurable: { thread_id: 'billing-thread-1' } };
const paused = await agent.invoke({ messages: [{ role: 'user', content: 'Pay inv_7 and refund inv_6' }] }, thread);
console.log(`paused at an interrupt: ${'__interrupt__' in paused}; payment body ran ${payments} time(s)`);

const done = await agent.invoke(new Command({ resume: 'yes' }), thread);
for (const message of done.messages) {
  const id = 'tool_call_id' in message ? ` (${String(message.tool_call_id)})` : '';
  console.log(`${message.getType()}${id}: ${String(message.content)}`);
}
console.log(`payment body ran ${payments} time(s) in all`);
