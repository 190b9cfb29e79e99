/**
 * The storage interface every ledger driver implements: small atomic primitives, no policy.
 */
import type { Outcome } from '../records/envelope.js';
import type { RecordKind, TransitionRecord } from '../records/transition-record.js';

/** What a driver can promise. */
export interface StorageCapabilities {
  /** Driver name, for messages (`memory`, `sqlite`, `redis`, `postgres`). */
  readonly name: string;
  /** Several processes may share the store safely. */
  readonly crossProcess: boolean;
  /**
   * Records outlive the process that wrote them (and the host's temporary files): the one fact the
   * production profile reads to refuse a store for side-effecting tools.
   */
  readonly durable: boolean;
}

/**
 * A condition of the store under which it may lose records without saying so (an evicting Redis
 * `maxmemory-policy`), found by the driver when it connected. The ledger refuses side-effecting
 * calls on a store with a hazard not `accepted`, and warns through its logger otherwise.
 */
export interface StorageHazard {
  /** Stable code: `evicting_maxmemory_policy`, `maxmemory_policy_unknown`. */
  readonly code: string;
  /** What was found and how to fix it. */
  readonly message: string;
  /** The user accepted the hazard with the driver's named option; calls go on, with a warning. */
  readonly accepted: boolean;
}

/**
 * The identity of the ledger a store holds: written once, when the store is first initialised,
 * and checked by every later write, so an emptied store is told from a new one.
 */
export interface LedgerIdentity {
  /** A random id (UUID) chosen when the ledger was initialised. */
  readonly ledgerId: string;
  /** Epoch ms of the initialisation. */
  readonly createdAt: number;
}

/** Result of {@link LedgerStorage.create}. */
export type CreateResult =
  | { readonly created: true; readonly record: TransitionRecord }
  /** A record with the same key exists (`conflict: 'key'`), or another record holds the ticket (`'ticket'`). */
  | { readonly created: false; readonly conflict: 'key' | 'ticket'; readonly record: TransitionRecord };

/** Filter and page of {@link LedgerStorage.list}. */
export interface ListQuery {
  readonly outcome?: Outcome | readonly Outcome[];
  readonly tool?: string;
  readonly kind?: RecordKind;
  /** Only records updated at or after this epoch ms. */
  readonly updatedFrom?: number;
  /** Only records updated before this epoch ms. */
  readonly updatedTo?: number;
  /** Page size; drivers cap it at 1000. Default 100. */
  readonly limit?: number;
  /** The `nextCursor` of the previous page. */
  readonly cursor?: string;
}

/** One page of records, newest update first. */
export interface ListPage {
  readonly records: readonly TransitionRecord[];
  readonly nextCursor: string | null;
}

/**
 * The atomic primitives the ledger composes.
 *
 * Drivers hold no policy: they never interpret outcomes, owners or fences. Every method either
 * completes atomically or throws; a driver never reports success for a write it did not make.
 */
export interface LedgerStorage {
  readonly capabilities: StorageCapabilities;
  /** The record under `key`, or null. */
  get(key: string): Promise<TransitionRecord | null>;
  /**
   * Insert `record` when no record has its key and, when `record.ticketKey` is set, no other record
   * holds that ticket; both checks and the insert are one atomic step.
   */
  create(record: TransitionRecord): Promise<CreateResult>;
  /** Replace the record under `key` with `next` when its stored version is `expectedVersion`. */
  update(key: string, expectedVersion: number, next: TransitionRecord): Promise<boolean>;
  /** The record holding a ticket index entry, or null. */
  findByTicket(ticketKey: string): Promise<TransitionRecord | null>;
  /** One page of records, ordered by update time (newest first), then key. */
  list(query?: ListQuery): Promise<ListPage>;
  /**
   * Optional: call `onChange` whenever the record under `key` is updated, by any client of the
   * store, until the returned function is called; and once as soon as the watch is live, since an
   * update made before that is not heard. Pollers use it only to read again sooner, so spurious
   * calls are harmless and a notice lost across a reconnect costs one poll interval. It must not
   * throw for a store that is down; it simply stays silent.
   */
  watch?(key: string, onChange: () => void): () => void;
  /**
   * Optional: the hazards found when the store connected (connecting now if it has not yet); the
   * ledger asks before every claim, so a driver answers from what it found, without a round trip.
   */
  hazards?(): readonly StorageHazard[] | Promise<readonly StorageHazard[]>;
  /**
   * Optional: the identity of the ledger the store holds, initialising the store when it holds none
   * (unless the driver was opened with `create: false`, when that fails closed with
   * `LedgerStorageCorruptError`). A driver that implements it refuses every write once the
   * identity it initialised or met is gone or replaced (a store emptied under it).
   */
  identity?(): Promise<LedgerIdentity>;
  /** Release what the driver opened; safe to call twice. */
  close(): Promise<void>;
}

/** The most records one {@link LedgerStorage.list} page returns. */
export const MAX_LIST_LIMIT = 1000;
/** The page size of {@link LedgerStorage.list} when none is given. */
export const DEFAULT_LIST_LIMIT = 100;
