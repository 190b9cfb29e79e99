/**
 * The MCP proxy's tool pins on the dashboard: every pinned definition, the changed ones waiting in
 * quarantine, and their review (approve or reject) through the same pin store `hyphae mcp approve`
 * uses. A review needs an actor and a reason, names the hash the operator looked at (a definition
 * that changed again meanwhile is refused), and is shown with what it will do before it is confirmed.
 */
import { createPinStore, type PinReviewResult, type ToolPin } from '../adapters/mcp/pins.js';
import type { JsonValue } from '../core/json.js';
import type { NamedLedger } from './queries.js';

/** The most pins read per ledger (pins are one per upstream tool). */
export const PIN_LIMIT = 1_000;

/** The pins of one ledger's store, quarantined first, and whether there were more. */
export interface LedgerPins {
  readonly ledger: string;
  readonly pins: readonly ToolPin[];
  readonly capped: boolean;
}

/** Read the pins of every ledger (the MCP proxy keeps them in the action ledger's store). */
export async function readPins(ledgers: readonly NamedLedger[]): Promise<LedgerPins[]> {
  return Promise.all(
    ledgers.map(async (named) => {
      const store = createPinStore(named.ledger.storage);
      const pins: ToolPin[] = [];
      let cursor: string | null = null;
      do {
        const page: Awaited<ReturnType<typeof store.list>> = await store.list({
          limit: 200,
          ...(cursor === null ? {} : { cursor }),
        });
        pins.push(...page.pins);
        cursor = page.nextCursor;
      } while (cursor !== null && pins.length < PIN_LIMIT);
      const waiting = (pin: ToolPin) => (pin.pending === null ? 1 : 0);
      pins.sort((a, b) => waiting(a) - waiting(b) || a.server.localeCompare(b.server) || a.tool.localeCompare(b.tool));
      return { ledger: named.name, pins, capped: cursor !== null };
    }),
  );
}

/** A checked review request. */
export interface PinReviewRequest {
  readonly ledger: string;
  readonly server: string;
  readonly tool: string;
  readonly action: 'approve' | 'reject';
  readonly hash: string;
  readonly by: string;
  readonly reason: string;
}

/** Check a review form: a known action, the pin named, the reviewed hash, an actor and a reason. */
export function parsePinReview(
  form: Readonly<Record<string, string | undefined>>,
): { ok: true; value: PinReviewRequest } | { ok: false; message: string } {
  const action = form.action;
  if (action !== 'approve' && action !== 'reject') return { ok: false, message: `Unknown action \`${action ?? ''}\`` };
  const field = (name: string) => form[name]?.trim() ?? '';
  const [ledger, server, tool, hash] = [field('ledger'), field('server'), field('tool'), field('hash')];
  if (server === '' || tool === '' || hash === '')
    return { ok: false, message: 'The form does not name a pending pin' };
  if (field('by') === '') return { ok: false, message: 'Say who you are: the actor is required' };
  if (field('reason') === '') return { ok: false, message: 'Say why: the reason is required' };
  return { ok: true, value: { ledger, server, tool, action, hash, by: field('by'), reason: field('reason') } };
}

/** One sentence on what the review will do, for the confirm step. */
export function describePinReview(request: PinReviewRequest): string {
  const tool = `\`${request.tool}\``;
  return request.action === 'approve'
    ? `The new definition is pinned: the proxy's next tools/list shows ${tool} again, with this definition, and calls to it run.`
    : `The old pin stays: ${tool} stays hidden and every call to it is refused while the server offers this definition. A different definition later is quarantined for review again.`;
}

/** The top-level fields of two definitions that differ (name, description, schemas, annotations). */
export function changedFields(before: JsonValue, after: JsonValue): string[] {
  const record = (value: JsonValue): Readonly<Record<string, JsonValue>> =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Readonly<Record<string, JsonValue>>)
      : {};
  const a = record(before);
  const b = record(after);
  return [...new Set([...Object.keys(a), ...Object.keys(b)])]
    .filter((field) => JSON.stringify(a[field] ?? null) !== JSON.stringify(b[field] ?? null))
    .sort();
}

/** Run a checked review on `named`'s pin store. */
export function runPinReview(named: NamedLedger, request: PinReviewRequest): Promise<PinReviewResult> {
  return createPinStore(named.ledger.storage).review(request.server, request.tool, request.action, {
    by: request.by,
    reason: request.reason,
    hash: request.hash,
  });
}
