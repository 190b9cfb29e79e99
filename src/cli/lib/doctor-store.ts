/**
 * The store checks of `hyphae doctor`: what a store says of itself (ledger id, hazards), the
 * replicas `wait_for_replicas` needs, and the fix of each failure.
 */
import type { RunSnapshotsSettings, StoreSettings } from '../../config/types.js';
import { GuardError, LedgerMissingError } from '../../errors.js';
import { describeTarget, storeFacts } from '../../storage/drivers.js';
import type { LedgerStorage } from '../../storage/ledger-storage.js';
import type { RedisStorage } from '../../storage/redis.js';

/** `work`, or a rejection after `ms`. */
export async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** How to mend a store that failed to open or answer. */
export function storeFix(store: StoreSettings, error: unknown): string {
  if (error instanceof GuardError && error.code === 'ledger_storage_corrupt') {
    if (error.message.includes('opened with `create: false`')) {
      return 'a new deployment, or a store written before ledger ids: initialise it once with `hyphae init --stores`; otherwise it was emptied: restore it from a backup';
    }
    return /newer/.test(error.message)
      ? 'upgrade hyphae: the store was written by a newer version'
      : 'restore the store from a backup; never point hyphae at a damaged store';
  }
  return storeFacts(store).fix;
}

/** The store as a check names it. */
export function describeStore(store: StoreSettings | RunSnapshotsSettings['store']): string {
  return describeTarget(store);
}

/** What the store says of itself: its ledger id, and each hazard (an evicting Redis policy). */
export async function storeFindings(
  storage: LedgerStorage,
  covered: string | undefined,
  timeoutMs: number,
  empty: boolean,
  allowEmpty: boolean,
): Promise<{ readonly notes: string[]; readonly refusal?: string; readonly empty: boolean }> {
  const notes: string[] = [];
  let refusal: string | undefined;
  for (const hazard of await withTimeout(Promise.resolve(storage.hazards?.() ?? []), timeoutMs)) {
    if (!hazard.accepted && covered !== undefined)
      refusal ??= `${hazard.message}; refused for side-effecting ${covered}`;
    else notes.push(`warning: ${hazard.message}${hazard.accepted ? ' (accepted)' : ''}`);
  }
  if (storage.identity !== undefined && !empty) {
    try {
      const { ledgerId, createdAt } = await withTimeout(storage.identity(), timeoutMs);
      const since = Number.isFinite(createdAt) && createdAt > 0 ? ` since ${new Date(createdAt).toISOString()}` : '';
      notes.unshift(`ledger ${ledgerId}${since}`);
    } catch (error) {
      if (!(error instanceof LedgerMissingError) || !allowEmpty) throw error;
      return { notes, empty: true, ...(refusal === undefined ? {} : { refusal }) };
    }
  }
  return { notes, empty, ...(refusal === undefined ? {} : { refusal }) };
}

/**
 * With `wait_for_replicas`, every master's connected replicas against the count it asks: a master
 * with fewer refuses every write (`LedgerStorageUnavailableError`), so no tool would run.
 */
export async function replicaShortfall(
  storage: LedgerStorage,
  store: StoreSettings,
  timeoutMs: number,
): Promise<{ readonly note: string; readonly refusal?: string } | undefined> {
  const asked = (store as { readonly waitForReplicas?: { readonly replicas: number } }).waitForReplicas;
  if (asked === undefined) return undefined;
  const counted = storage as Partial<Pick<RedisStorage, 'replicas'>>;
  if (typeof counted.replicas !== 'function') return undefined;
  const wanted = asked.replicas;
  const masters = await withTimeout(counted.replicas(), timeoutMs);
  const listed = masters.map((master) => `${master.node}: ${master.replicas}`).join(', ');
  const note = `replicas connected per master (${listed}); \`wait_for_replicas\` asks ${wanted}`;
  const short = masters.filter((master) => master.replicas < wanted);
  if (short.length === 0) return { note };
  return {
    note,
    refusal: `${masters.length === 1 ? 'the server has' : `${short.length} of ${masters.length} masters have`} fewer replicas connected than the ${wanted} \`wait_for_replicas\` asks (${listed}): every write to them is refused, so no ledgered call would run`,
  };
}

/** The fix of a store hazard the ledger refuses. */
export function hazardFix(store: StoreSettings): string {
  return storeFacts(store).hazardFix;
}
