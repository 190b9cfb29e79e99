/**
 * Demo step 5: a read whose first attempt ended UNKNOWN is simply retried.
 */
import { markMaybeCrossed } from '../../ledger/boundary-markers.js';
import type { DemoContext, StepReport } from './demo-context.js';

/** Step 5: reads may retry; only writes refuse to guess. */
export async function readRetriesAfterUnknown(ctx: DemoContext): Promise<StepReport> {
  let runs = 0;
  const lookup = ctx.ledger.tool(
    { name: 'lookup_order', sideEffectClass: 'read' },
    async (args: { orderId: string }) => {
      runs++;
      if (runs === 1) {
        // The upstream call went out and the connection dropped: nobody knows what happened.
        await markMaybeCrossed();
        throw new Error('upstream connection reset');
      }
      return { orderId: args.orderId, status: 'shipped' };
    },
  );
  const call = { toolCallId: 'call_lookup_1', scope: ctx.scope };
  let firstError = '';
  try {
    await lookup({ orderId: 'ord_7' }, call);
  } catch (error) {
    firstError = (error as Error).message;
  }
  const afterFirst = (await ctx.ledger.list({ tool: 'lookup_order', limit: 1 })).records[0]?.outcome ?? 'missing';
  const result = await lookup({ orderId: 'ord_7' }, call);
  return {
    pass:
      firstError === 'upstream connection reset' &&
      afterFirst === 'UNKNOWN' &&
      runs === 2 &&
      result.status === 'shipped',
    lines: [
      `first attempt failed (${firstError}) and was recorded ${afterFirst}`,
      `the redispatch met SOFT_BLOCK and retried the read: ${JSON.stringify(result)}`,
      `executions: ${runs} (expected 2; set deferReadOnlyUnknown to raise LedgerSoftBlockError instead)`,
    ],
  };
}
