/**
 * The demo's payment tool, shared by the parent and the child process it kills.
 */
import { recordExternalOperation, sideEffect } from '../../ledger/boundary-markers.js';
import type { CallOptions, Ledger, Reconciler } from '../../ledger/types.js';
import type { Charge, FakeGateway } from './fake-gateway.js';

/** Arguments of `send_payment`. */
export interface PaymentArgs {
  readonly amount: number;
  readonly recipient: string;
  readonly idempotencyKey: string;
}

/** The tool call every demo process dispatches. */
export const PAYMENT_CALL: { readonly args: PaymentArgs; readonly toolCallId: string } = Object.freeze({
  args: { amount: 100, recipient: 'acct_123', idempotencyKey: 'order-42' },
  toolCallId: 'call_pay_1',
});

/** The provider operation id of a payment, known before the gateway is called. */
export function paymentRef(args: PaymentArgs): string {
  return `pi_${args.idempotencyKey}`;
}

/** Wrap the payment tool; `beforeCharge` runs inside the boundary, just before the gateway call. */
export function paymentTool(
  ledger: Ledger,
  gateway: FakeGateway,
  hooks: { beforeCharge?: () => void; onRun?: () => void; reconciler?: Reconciler } = {},
): (args: PaymentArgs, options: CallOptions) => Promise<Charge> {
  return ledger.tool(
    {
      name: 'send_payment',
      sideEffectClass: 'keyed_mutate',
      providerIdempotencyKeyParam: 'idempotencyKey',
      ...(hooks.reconciler === undefined ? {} : { reconciler: hooks.reconciler }),
    },
    async (args: PaymentArgs) => {
      hooks.onRun?.();
      return sideEffect(async () => {
        const ref = paymentRef(args);
        await recordExternalOperation(ref);
        hooks.beforeCharge?.();
        return gateway.charge({ ref, amount: args.amount, recipient: args.recipient });
      });
    },
  );
}
