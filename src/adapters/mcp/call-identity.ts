/**
 * Which transition a `tools/call` is. A client that re-sends a call after a timeout or a reconnect
 * gives it a new JSON-RPC id, so the id cannot recognise a retry. A call is therefore identified
 * by, in order:
 *
 * 1. the client's idempotency key in `_meta` (`io.hyphae/idempotency-key` or `idempotencyKey`): the
 *    same key is the same call, and the same key with other arguments is refused as a conflict;
 * 2. for a side-effecting class, its intent — principal, session, tool and canonical arguments —
 *    within the retry window, and whether the earlier call's answer was delivered: a call with the
 *    same intent is a retry while the earlier attempt's answer never reached its client (it is
 *    still running, it was cancelled, the connection dropped); once that answer was delivered, the
 *    same intent is a new call, the next generation of the intent (`intent:…:1`, `intent:…:2`);
 * 3. for a read, the JSON-RPC id (a read is not ledgered: a retried read reads again).
 *
 * The window is kept exactly with two buckets: the ticket of bucket `floor(now / window)`, unless
 * the previous bucket's ticket holds a record whose first attempt is less than `windowMs` ago.
 * Delivery is a transition of its own, tool `mcp.delivered`, written through the ledger once the
 * answer was handed to the client's transport.
 */
import { canonicalJson } from '../../core/canonical-json.js';
import { sha256Hex } from '../../core/fingerprint.js';
import { unreadableArgument } from '../../invalid-argument.js';
import type { GuardRecords } from '../../ledger/guard-records.js';
import type { Ledger, LedgeredFunction } from '../../ledger/types.js';
import type { SideEffectClass } from '../../records/envelope.js';
import type { LedgerScope, TransitionRecord } from '../../records/transition-record.js';
import type { JsonRpcId } from './types.js';

/** The `_meta` keys a client may send its idempotency key under. */
export const IDEMPOTENCY_KEY_META = ['io.hyphae/idempotency-key', 'idempotencyKey'] as const;

/** The client's idempotency key in a request's `_meta`, or undefined. */
export function idempotencyKeyOf(meta: unknown): string | undefined {
  try {
    if (meta === null || typeof meta !== 'object') return undefined;
    for (const name of IDEMPOTENCY_KEY_META) {
      const value = (meta as Record<string, unknown>)[name];
      if (typeof value === 'string' && value !== '') return value;
    }
    return undefined;
  } catch (cause) {
    return unreadableArgument('idempotencyKeyOf', 'meta', cause);
  }
}

/** What identifying a call needs. */
export interface CallIdentityContext {
  /** The ledger's records: a call's transition by its ticket. None: calls are not ledgered. */
  readonly records: GuardRecords | undefined;
  readonly scope: LedgerScope;
  readonly windowMs: number;
  readonly now: () => number;
  /** Unique per proxy process, so JSON-RPC ids of two processes never meet. */
  readonly nonce: string;
}

/** The ledger ticket (the pipeline's call id) of a call. */
export async function callTicket(
  ctx: CallIdentityContext,
  call: {
    readonly name: string;
    readonly args: unknown;
    readonly meta: unknown;
    readonly rpcId: JsonRpcId;
    readonly sideEffectClass: SideEffectClass;
  },
): Promise<string> {
  const key = idempotencyKeyOf(call.meta);
  if (key !== undefined) return `key:${key}`;
  if (call.sideEffectClass === 'read' || ctx.records === undefined)
    return `rpc:${ctx.nonce}:${JSON.stringify(call.rpcId)}`;
  const digest = sha256Hex(canonicalJson([call.name, call.args ?? null]));
  const now = ctx.now();
  const bucket = Math.floor(now / ctx.windowMs);
  const previous = `intent:${bucket - 1}:${digest}`;
  const first = await findTicket(ctx, previous);
  const base = first !== null && now - first.firstAttemptAt < ctx.windowMs ? previous : `intent:${bucket}:${digest}`;
  for (let generation = 0; ; generation++) {
    const ticket = generation === 0 ? base : `${base}:${generation}`;
    const record = generation === 0 && base === previous ? first : await findTicket(ctx, ticket);
    // A completed call whose answer was delivered is done: the same intent again is a new call.
    if (record?.outcome !== 'COMPLETED' || (await findTicket(ctx, deliveredTicket(ticket))) === null) return ticket;
  }
}

/** The tool name of delivery markers. */
export const DELIVERED_TOOL = 'mcp.delivered';

/** The ticket of the delivery marker of a call's ticket. */
export function deliveredTicket(ticket: string): string {
  return `delivered:${ticket}`;
}

function findTicket(ctx: CallIdentityContext, ticket: string): Promise<TransitionRecord | null> {
  return (ctx.records as GuardRecords).byTicket(ctx.scope, ticket);
}

/**
 * Record through the ledger that the answer of the call with `ticket` reached the client's
 * transport, when that call's transition is COMPLETED (an answer that was a refusal delivers
 * nothing). A call identified by the client's key or its JSON-RPC id needs no marker.
 */
export async function markDelivered(
  ctx: CallIdentityContext & { readonly ledger: Ledger },
  ticket: string,
): Promise<void> {
  if (!ticket.startsWith('intent:')) return;
  const record = await findTicket(ctx, ticket);
  if (record?.outcome !== 'COMPLETED') return;
  const marker =
    markers.get(ctx.ledger) ??
    ctx.ledger.tool<{ readonly ticket: string }, true>(
      { name: DELIVERED_TOOL, sideEffectClass: 'idempotent_mutate', identity: 'intent' },
      () => true,
    );
  markers.set(ctx.ledger, marker);
  await marker({ ticket }, { requestId: deliveredTicket(ticket), scope: ctx.scope });
}

const markers = new WeakMap<Ledger, LedgeredFunction<{ readonly ticket: string }, true>>();
