/**
 * One running claim: the owner's only way to write to its record.
 *
 * Every write is a compare-and-set on `version` made from the last record this claim wrote, so a
 * paused owner whose lease was taken over cannot write:
 *
 *   A claims (fence 1, v1) ── pauses ──────────────── wakes, CAS(v1 → v2) fails ─► LedgerFencedError
 *   B          lease expires ─► takes over (fence 2, v2) ─► runs
 *
 * A record that vanished, or went back to an older version or fence, was not taken over: the store
 * lost writes (restarted empty, flushed, restored). That fails closed with LedgerStorageCorruptError,
 * never LedgerFencedError, so the caller is not told another owner holds a call nobody holds.
 *
 * Writes of one claim (lease renewals, boundary marks, completion) are serialised through a queue.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { canonicalJson } from '../core/canonical-json.js';
import type { Clock } from '../core/clock.js';
import { GuardError, LedgerFencedError, LedgerStorageCorruptError, LedgerStorageUnavailableError } from '../errors.js';
import { advanceBoundary, type Boundary } from '../records/envelope.js';
import type { TransitionRecord } from '../records/transition-record.js';
import type { LedgerStorage } from '../storage/ledger-storage.js';
import { announceChange } from './transition-watch.js';

/**
 * Pauses before the retries of one write when the store fails mid-write (the write may or may not
 * have landed). Real time, not the ledger clock: this waits out a reconnect, it decides nothing.
 */
const WRITE_RETRY_DELAYS_MS = [0, 25, 100, 250] as const;

type Patch = (current: TransitionRecord, now: number) => Partial<TransitionRecord>;

/** Equal content, whatever order a store gives the record's members back in. */
function sameWrite(stored: TransitionRecord, intended: TransitionRecord): boolean {
  return canonicalJson({ ...stored, ticketKey: null }) === canonicalJson({ ...intended, ticketKey: null });
}

/**
 * The error for a claim whose record is gone or older than what the claim last wrote (versions and
 * fences only grow, so neither is a takeover); null for a record another owner took over.
 */
function lostRecord(
  storage: LedgerStorage,
  base: TransitionRecord,
  stored: TransitionRecord | null,
): LedgerStorageCorruptError | null {
  const location = `${storage.capabilities.name}#${base.key}`;
  if (stored === null) {
    return new LedgerStorageCorruptError(location, `transition \`${base.key}\` disappeared while its call ran`);
  }
  if (stored.version < base.version || (Number.isInteger(stored.fence) ? stored.fence : 0) < base.fence) {
    return new LedgerStorageCorruptError(
      location,
      `transition \`${base.key}\` went back from version ${base.version} (fence ${base.fence}) to version ${stored.version} (fence ${stored.fence}) while its call ran`,
    );
  }
  return null;
}

/** Wrap a driver error as "storage unavailable" unless it is already a typed hyphae error. */
export function asStorageError(operation: string, error: unknown): GuardError {
  return error instanceof GuardError ? error : new LedgerStorageUnavailableError(operation, { cause: error });
}

/** The owner's handle on a claimed record. */
export class ActiveClaim {
  readonly #storage: LedgerStorage;
  readonly #clock: Clock;
  readonly #leaseTtlMs: number;
  #current: TransitionRecord;
  /** The last write started or queued; the next one waits for it unless none is pending. */
  #queue: Promise<unknown> | null = null;
  /** Writes started or queued and not yet settled. */
  #pending = 0;
  /** Why this claim can write no more: taken over, or its record was lost. */
  #fenced: LedgerFencedError | LedgerStorageCorruptError | null = null;
  /** A boundary reached in memory (a clean `sideEffect` exit) that rides on the next write. */
  #pendingBoundary: Boundary = 'not_crossed';

  constructor(storage: LedgerStorage, record: TransitionRecord, clock: Clock, leaseTtlMs: number) {
    this.#storage = storage;
    this.#current = record;
    this.#clock = clock;
    this.#leaseTtlMs = leaseTtlMs;
  }

  get record(): TransitionRecord {
    return this.#current;
  }

  /** The furthest boundary this attempt reached, durable or not. */
  get boundary(): Boundary {
    return advanceBoundary(this.#current.boundary, this.#pendingBoundary);
  }

  get fenced(): boolean {
    return this.#fenced !== null;
  }

  /** Note a boundary reached without writing it; the next write carries it. */
  notePendingBoundary(boundary: Boundary): void {
    this.#pendingBoundary = advanceBoundary(this.#pendingBoundary, boundary);
  }

  leaseUntil(now: number): number | null {
    return this.#leaseTtlMs > 0 ? now + this.#leaseTtlMs : null;
  }

  /**
   * Apply `patch` durably; throws LedgerFencedError when the claim was taken over. The boundary
   * only moves forward, unless `unstarted` says the body never started: a claim written
   * `maybe_crossed` for a body that then did not run goes back to the boundary the patch names.
   */
  write(operation: string, patch: Patch, unstarted = false): Promise<TransitionRecord> {
    // An idle claim writes at once; a busy one queues behind its last write, however that ended.
    const go = (): Promise<TransitionRecord> => this.#write(operation, patch, unstarted);
    const run = this.#pending === 0 || this.#queue === null ? go() : this.#queue.then(go, go);
    this.#pending += 1;
    this.#queue = run;
    return run;
  }

  /** Adopt a record this claim wrote, and tell this process's pollers of it to read it again. */
  #written(record: TransitionRecord): TransitionRecord {
    this.#current = record;
    announceChange(this.#storage, record.key);
    return record;
  }

  /** One write, retried while the store's answer is uncertain. */
  async #write(operation: string, patch: Patch, unstarted: boolean): Promise<TransitionRecord> {
    try {
      if (this.#fenced !== null) throw this.#fenced;
      let lastError: unknown;
      // Every write sent may have landed even when the answer says otherwise: its reply was lost
      // with the connection, or the client sent it again after a reconnect (ioredis does by default)
      // and answered for the second copy, which lost to the first. A stored record equal to one of
      // them is this claim's own write.
      const sent: TransitionRecord[] = [];
      const ownLanded = (stored: TransitionRecord | null | undefined): TransitionRecord | null =>
        stored !== undefined && stored !== null && sent.some((write) => sameWrite(stored, write)) ? stored : null;
      for (const delay of WRITE_RETRY_DELAYS_MS) {
        if (delay > 0 && lastError !== undefined) await sleep(delay);
        const base = this.#current;
        const now = this.#clock.now();
        const changes = patch(base, now);
        const next: TransitionRecord = {
          ...base,
          ...changes,
          boundary:
            unstarted && changes.boundary !== undefined
              ? changes.boundary
              : advanceBoundary(
                  base.boundary,
                  advanceBoundary(changes.boundary ?? base.boundary, this.#pendingBoundary),
                ),
          version: base.version + 1,
          updatedAt: now,
        };
        sent.push(next);
        try {
          if (await this.#storage.update(base.key, base.version, next)) return this.#written(next);
        } catch (error) {
          // A store that says it lost records is not retried: no answer from it can be trusted.
          if (error instanceof LedgerStorageCorruptError) {
            this.#fenced = error;
            throw error;
          }
          // The write may have landed before the connection broke: read back before deciding.
          lastError = error;
          const stored = await this.#storage.get(base.key).catch(() => undefined);
          const landed = ownLanded(stored);
          if (landed !== null) return this.#written(landed);
          if (stored === undefined || (stored !== null && stored.version === base.version)) continue;
        }
        const stored = await this.#storage.get(base.key).catch((error: unknown) => {
          throw asStorageError(operation, error);
        });
        const landed = ownLanded(stored);
        // The compare-and-set lost to a write of this very operation.
        if (landed !== null) return this.#written(landed);
        if (
          stored !== null &&
          stored.owner === base.owner &&
          stored.fence === base.fence &&
          stored.outcome === 'IN_FLIGHT'
        ) {
          // Still ours (nothing else writes an owned record): adopt the stored version and retry.
          this.#current = stored;
          continue;
        }
        this.#fenced = lostRecord(this.#storage, base, stored) ?? new LedgerFencedError(base.key, base.fence, stored);
        throw this.#fenced;
      }
      throw asStorageError(operation, lastError);
    } finally {
      this.#pending -= 1;
    }
  }
}
