/**
 * Child process of `hyphae demo`: dispatches the payment and is killed inside `sideEffect`,
 * after the operation ref is recorded and before the gateway is called.
 */
import { createLedger } from '../../ledger/create-ledger.js';
import type { LedgerScope } from '../../records/transition-record.js';
import { openFakeGateway } from './fake-gateway.js';
import { openDemoStorage, parseBackendArgs } from './open-storage.js';
import { PAYMENT_CALL, paymentTool } from './payment-tool.js';

const [kind, target, scopeJson, gatewayPath, leaseTtl] = process.argv.slice(2);
if (scopeJson === undefined || gatewayPath === undefined || leaseTtl === undefined) {
  process.stderr.write('usage: demo-child KIND TARGET SCOPE_JSON GATEWAY LEASE_TTL_MS\n');
  process.exit(2);
}
const ledger = createLedger({
  storage: await openDemoStorage(parseBackendArgs(kind, target)),
  agentId: 'demo-agent',
  policyVersion: 'demo-1',
  leaseTtlMs: Number(leaseTtl),
});
const pay = paymentTool(ledger, openFakeGateway(gatewayPath), {
  beforeCharge: () => process.kill(process.pid, 'SIGKILL'),
});
await pay(PAYMENT_CALL.args, { toolCallId: PAYMENT_CALL.toolCallId, scope: JSON.parse(scopeJson) as LedgerScope });
process.stderr.write('the child was expected to die inside sideEffect\n');
process.exit(3);
