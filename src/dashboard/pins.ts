/**
 * The MCP proxy's tool pins on the dashboard: every pinned definition, the changed ones waiting in
 * quarantine, and their review (approve or reject) through the pin reviewer the dashboard is given
 * (`hyphae dashboard` gives it the MCP proxy's own pin store, the one `hyphae mcp approve` uses). A
 * review needs an actor and a reason, names the hash the operator looked at (a definition that
 * changed again meanwhile is refused), and is shown with what it will do before it is confirmed.
 */
import type { JsonValue } from '../core/json.js';
import type { NamedLedger } from './queries.js';

/** A tool pin as the dashboard shows it: the approved definition and the one waiting, if any. */
export interface DashboardPin {
  readonly server: string;
  readonly tool: string;
  readonly hash: string;
  readonly definition: JsonValue;
  readonly pending: { readonly hash: string; readonly definition: JsonValue; readonly seenAt: number } | null;
  readonly approvedBy: string | null;
  readonly review?: {
    readonly action: 'approved' | 'rejected';
    readonly hash: string;
    readonly by: string;
    readonly reason: string | null;
    readonly at: number;
  } | null;
}

/** What a review did: the pin after it, or why the pin store refused it. */
export type DashboardPinReviewResult =
  | { readonly ok: true; readonly pin: DashboardPin }
  | { readonly ok: false; readonly code: string; readonly message: string };

/** The pins of one ledger: read a page, review a pending definition. */
export interface DashboardPinReviewer {
  list(options?: { readonly limit?: number; readonly cursor?: string }): Promise<{
    readonly pins: readonly DashboardPin[];
    readonly nextCursor: string | null;
  }>;
  review(
    server: string,
    tool: string,
    action: 'approve' | 'reject',
    input: { readonly by: string; readonly reason: string; readonly hash: string },
  ): Promise<DashboardPinReviewResult>;
}

/** The pin reviewer of a ledger (`hyphae dashboard`: `(ledger) => createPinStore(ledger)` of `hyphae/mcp`). */
export type PinReviewerOf = (ledger: NamedLedger['ledger']) => DashboardPinReviewer;

/** The most pins read per ledger (pins are one per upstream tool). */
export const PIN_LIMIT = 1_000;

/** The pins of one ledger's store, quarantined first, and whether there were more. */
export interface LedgerPins {
  readonly ledger: string;
  readonly pins: readonly DashboardPin[];
  readonly capped: boolean;
}

/** Read the pins of every ledger (the MCP proxy keeps them in the action ledger). */
export async function readPins(ledgers: readonly NamedLedger[], reviewerOf: PinReviewerOf): Promise<LedgerPins[]> {
  return Promise.all(
    ledgers.map(async (named) => {
      const store = reviewerOf(named.ledger);
      const pins: DashboardPin[] = [];
      let cursor: string | null = null;
      do {
        const page: Awaited<ReturnType<typeof store.list>> = await store.list({
          limit: 200,
          ...(cursor === null ? {} : { cursor }),
        });
        pins.push(...page.pins);
        cursor = page.nextCursor;
      } while (cursor !== null && pins.length < PIN_LIMIT);
      const waiting = (pin: DashboardPin) => (pin.pending === null ? 1 : 0);
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
export function runPinReview(
  named: NamedLedger,
  request: PinReviewRequest,
  reviewerOf: PinReviewerOf,
): Promise<DashboardPinReviewResult> {
  return reviewerOf(named.ledger).review(request.server, request.tool, request.action, {
    by: request.by,
    reason: request.reason,
    hash: request.hash,
  });
}
