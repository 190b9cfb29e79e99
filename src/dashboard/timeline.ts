/**
 * One timeline of a transition: its claim, fence and lease, boundary, external operation ref,
 * attempts, result or error, operator resolution, and its receipts.
 *
 * A record keeps its current state, not a history of writes; the timeline is built from the times
 * the record holds (created, first attempt, the current attempt's decision, last heartbeat,
 * completed, released, release consumed, last write) and from the receipts on the chain, each of
 * which is a signed event of its own.
 */
import { decisionDigest } from '../ledger/decision.js';
import { shownOutcome } from '../ledger/operator/read-model.js';
import type { DecisionVerdict } from '../records/decision.js';
import type { TransitionRecord } from '../records/transition-record.js';
import type { Receipt } from '../storage/receipt.js';

/** One entry of the timeline. */
export interface TimelineEntry {
  /** Epoch ms. */
  readonly at: number;
  /** What happened, in a few words. */
  readonly title: string;
  readonly detail: string;
  readonly kind: 'claim' | 'decision' | 'lease' | 'outcome' | 'operator' | 'receipt' | 'write';
  /** The verdicts of a `decision` entry, in the order the checks ran. */
  readonly verdicts?: readonly DecisionVerdict[];
}

/** The decision the current attempt was claimed with, or none for a record older than the protocol. */
function decisionEntry(record: TransitionRecord): TimelineEntry | null {
  const decision = record.decision;
  if (decision === undefined) return null;
  const checks = decision.verdicts.length;
  return {
    // Written by the claim of the current attempt: its time when the claim recorded it.
    at: decision.at ?? record.createdAt,
    title: decision.allowed ? 'Decision: allowed' : 'Decision: denied',
    detail: `${
      decision.allowed
        ? `${checks} check${checks === 1 ? '' : 's'} let attempt ${record.attempts} run`
        : `denied: ${decision.deniedReasons.join('; ')}`
    }, digest \`${decisionDigest(decision).slice(0, 16)}\``,
    kind: 'decision',
    verdicts: decision.verdicts,
  };
}

function outcomeDetail(record: TransitionRecord): string {
  if (record.error !== null) return `${record.error.name}: ${record.error.message}`;
  return record.result === undefined ? 'no result' : `result ${JSON.stringify(record.result)}`;
}

function receiptEntry(receipt: Receipt): TimelineEntry {
  const operator = receipt.operator === undefined ? '' : ` by ${receipt.operator.by}: ${receipt.operator.reason}`;
  const error = receipt.error === undefined ? '' : ` (${receipt.error.name}: ${receipt.error.message})`;
  const decision = receipt.decisionHash === undefined ? '' : `, decision \`${receipt.decisionHash.slice(0, 16)}\``;
  return {
    at: Date.parse(receipt.timestamp),
    title: `Receipt #${receipt.seq}: ${receipt.outcome}`,
    detail: `${receipt.actionKind} receipt, key \`${receipt.keyId}\`${decision}${operator}${error}`,
    kind: 'receipt',
  };
}

/** The timeline of `record`, oldest first. */
export function buildTimeline(record: TransitionRecord, receipts: readonly Receipt[], now: number): TimelineEntry[] {
  const entries: TimelineEntry[] = [
    {
      at: record.createdAt,
      title: 'Claimed',
      detail: `first claim of \`${record.tool}\` (${record.sideEffectClass}) by agent \`${record.agentId}\``,
      kind: 'claim',
    },
  ];
  if (record.firstAttemptAt !== record.createdAt) {
    entries.push({ at: record.firstAttemptAt, title: 'First attempt', detail: 'the body first ran', kind: 'claim' });
  }
  const decided = decisionEntry(record);
  if (decided !== null) entries.push(decided);
  if (record.lastHeartbeatAt !== null) {
    const lease =
      record.outcome !== 'IN_FLIGHT'
        ? 'lease released'
        : record.leaseUntil === null
          ? 'lease unbounded'
          : `lease until ${new Date(record.leaseUntil).toISOString()}${shownOutcome(record, now) === 'EXPIRED' ? ' (expired)' : ''}`;
    entries.push({
      at: record.lastHeartbeatAt,
      title: 'Last heartbeat',
      detail: `owner \`${record.owner ?? 'none'}\`, fence ${record.fence}, ${lease}`,
      kind: 'lease',
    });
  }
  if (record.completedAt !== null) {
    entries.push({ at: record.completedAt, title: record.outcome, detail: outcomeDetail(record), kind: 'outcome' });
  }
  const resolution = record.operatorResolution;
  if (resolution !== null) {
    entries.push({
      at: resolution.at,
      title: `Released as ${resolution.verified}`,
      detail: `by ${resolution.by}: ${resolution.reason} (was ${resolution.previousOutcome})`,
      kind: 'operator',
    });
    if (resolution.verified === 'not_executed' && resolution.consumedAt !== null) {
      entries.push({
        at: resolution.consumedAt,
        title: 'Release consumed',
        detail: 'the next call ran the tool once more',
        kind: 'operator',
      });
    }
  }
  for (const receipt of receipts) entries.push(receiptEntry(receipt));
  entries.push({
    at: record.updatedAt,
    title: 'Last write',
    detail: `now ${shownOutcome(record, now)}, boundary ${record.boundary}, ${record.attempts} attempt${record.attempts === 1 ? '' : 's'}, version ${record.version}`,
    kind: 'write',
  });
  // Stable: entries at the same ms keep the order above (claim before lease before outcome).
  return entries
    .map((entry, order) => ({ entry, order }))
    .sort((a, b) => a.entry.at - b.entry.at || a.order - b.order)
    .map(({ entry }) => entry);
}
