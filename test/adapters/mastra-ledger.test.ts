/**
 * `hyphae/mastra` and the ledger, over the real `Agent` on every store: a payment re-sent under
 * the same call id, a run retried after it was aborted mid-charge and a run delivered twice at
 * once each charge once, where stock Mastra charges twice.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { withGuards } from '../../src/adapters/mastra.js';
import { everyStore } from '../helpers/every-store.js';
import { agentOf, billingTools, runContext, type Step, scriptedModel } from './mastra/agent.js';
import { billingGuards } from './mastra/guards.js';

const pay = (id: string): Step => ({
  calls: [{ id, name: 'send_payment', input: { invoice: 'inv_42', amount: 100 } }],
});
const PAID: Step = { text: 'Invoice 42 is paid.' };

describe('stock Mastra pays twice', () => {
  it('for the same call id re-sent in a later step', async () => {
    const billing = billingTools();
    const agent = agentOf({ model: scriptedModel([pay('call_pay'), pay('call_pay'), PAID]), tools: billing.tools });

    await agent.generate('Pay invoice 42');

    expect(billing.charges.map((charge) => charge.callId)).toEqual(['call_pay', 'call_pay']);
  });

  it('for a run retried after an abort mid-charge: the aborted run returns normally', async () => {
    const billing = billingTools();
    const release = billing.holdPayments();
    const abort = new AbortController();
    const agent = agentOf({ model: scriptedModel([pay('call_a'), pay('call_b'), PAID]), tools: billing.tools });

    const first = agent.generate('Pay invoice 42', { abortSignal: abort.signal });
    await billing.paymentStarted;
    abort.abort();
    const aborted = await first;
    release();
    await agent.generate('Pay invoice 42');
    await billing.settled();

    expect([aborted.finishReason, aborted.text]).toEqual(['tool-calls', '']);
    expect(billing.charges.map((charge) => charge.callId)).toEqual(['call_a', 'call_b']);
  });
});

const stores = await everyStore();

describe.each(stores)('guarded Mastra pays once on %s', (_name, backend) => {
  afterAll(() => backend.dispose());

  it('for the same call id re-sent in a later step: the second is answered from the ledger', async () => {
    const { storage, cleanup } = await backend.open();
    try {
      const billing = billingTools();
      const model = scriptedModel([pay('call_pay'), pay('call_pay'), PAID]);
      const agent = agentOf(withGuards(billingGuards({ storage }), { model, tools: billing.tools }));

      const result = await agent.generate('Pay invoice 42', { requestContext: runContext(`same-id-${_name}`) });

      expect([billing.charges.length, result.text]).toEqual([1, 'Invoice 42 is paid.']);
      expect(JSON.stringify(model.prompts[2]?.at(-1))).toContain('inv_42');
    } finally {
      await cleanup();
    }
  });

  it('for a run retried after an abort mid-charge, under a new call id', async () => {
    const { storage, cleanup } = await backend.open();
    try {
      const pipeline = billingGuards({ storage });
      const billing = billingTools();
      const release = billing.holdPayments();
      const abort = new AbortController();
      const scope = runContext(`abort-${_name}`);
      const first = agentOf(
        withGuards(pipeline, { model: scriptedModel([pay('call_a'), PAID]), tools: billing.tools }),
      );
      const retry = agentOf(
        withGuards(pipeline, { model: scriptedModel([pay('call_b'), PAID]), tools: billing.tools }),
      );

      const aborting = first.generate('Pay invoice 42', { abortSignal: abort.signal, requestContext: scope });
      await billing.paymentStarted;
      abort.abort();
      await aborting;
      // The charge is still in flight: the retry waits for it and gets its result.
      const retried = retry.generate('Pay invoice 42', { requestContext: runContext(`abort-${_name}`) });
      release();
      const result = await retried;
      await billing.settled();

      expect([billing.charges.length, result.text]).toEqual([1, 'Invoice 42 is paid.']);
    } finally {
      await cleanup();
    }
  });

  it('for a run delivered twice at once', async () => {
    const { storage, cleanup } = await backend.open();
    try {
      const pipeline = billingGuards({ storage });
      const billing = billingTools();
      const release = billing.holdPayments();
      const agent = () =>
        agentOf(withGuards(pipeline, { model: scriptedModel([pay('call_pay'), PAID]), tools: billing.tools }));

      const first = agent().generate('Pay invoice 42', { requestContext: runContext(`twice-${_name}`) });
      await billing.paymentStarted;
      const second = agent().generate('Pay invoice 42', { requestContext: runContext(`twice-${_name}`) });
      release();
      const results = await Promise.all([first, second]);

      expect(billing.charges).toHaveLength(1);
      expect(results.map((result) => result.text)).toEqual(['Invoice 42 is paid.', 'Invoice 42 is paid.']);
    } finally {
      await cleanup();
    }
  });
});
