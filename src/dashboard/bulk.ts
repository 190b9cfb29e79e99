/**
 * Bulk actions: the transitions a list filter selects (at most `bulkLimit`, newest first), an
 * impact preview of what the action will do to each, then the action run through the ledger's
 * operator API one transition at a time. Each gets the same actor and reason and its own receipt;
 * a transition the ledger refuses (a lease held, already resolved, changed meanwhile) is reported
 * and the rest go on.
 */
import { GuardError } from '../errors.js';
import { isExpired } from '../ledger/resolve-gate.js';
import {
  defaultPresumedDeadAfterMs,
  hasWorkerDeathEvidence,
  heartbeatAgeMs,
  requiresDeathSignal,
} from '../ledger/worker-death.js';
import type { TransitionRecord } from '../records/transition-record.js';
import { ActionKind, type ActionRequest, runAction } from './actions.js';
import { type ListFilter, listPage, type NamedLedger, type QueryLimits } from './queries.js';

/** What a filter selected for a bulk action. */
export interface BulkSelection {
  readonly records: readonly TransitionRecord[];
  /** True when more transitions matched than the bound lets one action take. */
  readonly more: boolean;
  /** True when the search stopped at the scan bound before the end of the store. */
  readonly scanCapped: boolean;
}

/** Select the newest transitions matching `filter` (its cursor ignored), at most `limits.bulkLimit`. */
export async function selectForBulk(
  named: NamedLedger,
  filter: ListFilter,
  now: number,
  limits: QueryLimits,
): Promise<BulkSelection> {
  const max = limits.bulkLimit;
  const records: TransitionRecord[] = [];
  let cursor: string | undefined;
  let scanned = 0;
  for (;;) {
    const { cursor: _ignored, ...rest } = filter;
    const page = await listPage(named, { ...rest, ...(cursor === undefined ? {} : { cursor }) }, now, {
      ...limits,
      pageSize: max + 1 - records.length,
    });
    records.push(...page.records);
    scanned += page.scanned;
    if (records.length > max) return { records: records.slice(0, max), more: true, scanCapped: false };
    if (page.nextCursor === null) return { records, more: false, scanCapped: false };
    if (scanned >= limits.scanLimit) return { records, more: false, scanCapped: true };
    cursor = page.nextCursor;
  }
}

/** What the action will do to one transition, as far as its record shows now. */
export interface BulkImpact {
  /** False when the ledger will refuse it (it is still tried, and the refusal reported). */
  readonly applies: boolean;
  readonly effect: string;
}

/** The impact of `kind` on `record`, by the rules the ledger's operator API applies. */
export function bulkImpact(kind: ActionRequest['kind'], record: TransitionRecord, now: number): BulkImpact {
  const refused = (why: string): BulkImpact => ({ applies: false, effect: `Will be refused: ${why}` });
  if (kind === ActionKind.mark_dead) {
    if (record.outcome !== 'IN_FLIGHT') return refused(`it is ${record.outcome}, not IN_FLIGHT`);
    return {
      applies: true,
      effect:
        'Lease ends now: the next call reclaims it only if nothing may have been spent, otherwise it hard-blocks until released',
    };
  }
  if (record.outcome === 'COMPLETED') return refused('already resolved (COMPLETED)');
  if (record.outcome === 'IN_FLIGHT' && !isExpired(record, now)) {
    return refused(`a lease is held by \`${record.owner ?? 'unknown'}\``);
  }
  const resolution = record.operatorResolution;
  if (resolution?.verified === 'not_executed' && resolution.consumedAt === null) {
    return refused('an earlier release is still pending');
  }
  if (record.outcome === 'IN_FLIGHT' && mayStillBeAlive(record, now)) {
    return refused(
      `its worker \`${record.owner ?? 'unknown'}\` may be alive (last heartbeat ${Math.round(heartbeatAgeMs(record, now) / 1000)} s ago): mark it dead first`,
    );
  }
  return kind === ActionKind.release_not_executed
    ? { applies: true, effect: 'The tool will run once more: the next call with these arguments runs it exactly once' }
    : { applies: true, effect: 'Result recorded: the next call returns it, and the tool does not run again' };
}

/**
 * Whether releasing this expired claim needs evidence its worker is dead that the record does not
 * show, by the ledger's defaults: a consequential class, no death signal, and a heartbeat younger
 * than twice the lease it last took. A ledger configured otherwise decides for itself; its refusal
 * is then reported as it is.
 */
function mayStillBeAlive(record: TransitionRecord, now: number): boolean {
  if (!requiresDeathSignal('consequential', record.sideEffectClass)) return false;
  const lastBeat = record.lastHeartbeatAt ?? record.updatedAt;
  const lease = record.leaseUntil === null ? 0 : Math.max(0, record.leaseUntil - lastBeat);
  return !hasWorkerDeathEvidence(record, now, defaultPresumedDeadAfterMs(lease));
}

/** What running the action did to one transition. */
export type BulkItemResult =
  | { readonly key: string; readonly ok: true; readonly record: TransitionRecord }
  | {
      readonly key: string;
      readonly ok: false;
      readonly tool: string | null;
      readonly code: string;
      readonly message: string;
    };

/** Run `request` on each of `keys` in order, one at a time; a refusal or failure does not stop the rest. */
export async function runBulk(
  named: NamedLedger,
  keys: readonly string[],
  request: ActionRequest,
  onError: ((error: unknown) => void) | undefined,
): Promise<BulkItemResult[]> {
  const results: BulkItemResult[] = [];
  for (const key of keys) {
    try {
      // The action reads the record once; a refusal names the record it is about.
      const outcome = await runAction([named], key, request);
      results.push(
        outcome.ok
          ? { key, ok: true, record: outcome.record }
          : { key, ok: false, tool: outcome.record?.tool ?? null, code: outcome.code, message: outcome.message },
      );
    } catch (error) {
      // A store that fails for one transition is reported with it; the next is still tried.
      onError?.(error);
      const message = error instanceof Error ? error.message : String(error);
      const code = error instanceof GuardError ? error.code : 'failed';
      results.push({ key, ok: false, tool: null, code, message });
    }
  }
  return results;
}
