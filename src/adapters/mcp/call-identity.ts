/**
 * Which transition a `tools/call` is. A client that re-sends a call after a timeout or a reconnect
 * gives it a new JSON-RPC id, so the id cannot recognise a retry. A call is therefore identified
 * by, in order:
 *
 * 1. the client's idempotency key in `_meta` (`io.hyphae/idempotency-key` or `idempotencyKey`): the
 *    same key is the same call, and the same key with other arguments is refused as a conflict;
 * 2. for a side-effecting class, its intent — principal, session, tool and canonical arguments —
 *    within the retry window: a call with the same intent less than `windowMs` after the first
 *    attempt is a retry; one later is a new call;
 * 3. for a read, the JSON-RPC id (a read is not ledgered: a retried read reads again).
 *
 * The window is kept exactly with two buckets: the ticket of bucket `floor(now / window)`, unless
 * the previous bucket's ticket holds a record whose first attempt is less than `windowMs` ago.
 */
import { canonicalJson } from '../../core/canonical-json.js';
import { sha256Hex } from '../../core/fingerprint.js';
import { unreadableArgument } from '../../invalid-argument.js';
import { ticketKey } from '../../ledger/transition-key.js';
import type { SideEffectClass } from '../../storage/envelope.js';
import type { LedgerStorage } from '../../storage/ledger-storage.js';
import type { LedgerScope } from '../../storage/transition-record.js';
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
  readonly storage: LedgerStorage | undefined;
  readonly agentId: string;
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
  if (call.sideEffectClass === 'read' || ctx.storage === undefined)
    return `rpc:${ctx.nonce}:${JSON.stringify(call.rpcId)}`;
  const digest = sha256Hex(canonicalJson([call.name, call.args ?? null]));
  const now = ctx.now();
  const bucket = Math.floor(now / ctx.windowMs);
  const previous = `intent:${bucket - 1}:${digest}`;
  const record = await ctx.storage.findByTicket(ticketKey(ctx.scope, ctx.agentId, previous));
  if (record !== null && now - record.firstAttemptAt < ctx.windowMs) return previous;
  return `intent:${bucket}:${digest}`;
}
