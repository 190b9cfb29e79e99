/**
 * Worker process of `hyphae verify`: opens the verification store, makes one synthetic call and is
 * killed (`SIGKILL`) at the point its order names. Reaching the end is an error.
 */
import { openLedgerStorage } from '../../config/open-stores.js';
import { CHILD_ORDER_ENV, type ChildOrder, syntheticArgs, syntheticTool } from './synthetic-tool.js';

const text = process.env[CHILD_ORDER_ENV];
if (text === undefined) {
  process.stderr.write(`verify-child: ${CHILD_ORDER_ENV} is not set\n`);
  process.exit(2);
}
const order = JSON.parse(text) as ChildOrder;
const storage = await openLedgerStorage(order.store, {});
const tool = syntheticTool(storage, order, order.crashAt);
await tool(syntheticArgs(order), { toolCallId: order.callId, scope: order.scope });
process.stderr.write('the verification worker was expected to be killed\n');
process.exit(3);
