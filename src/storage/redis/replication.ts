/**
 * `waitForReplicas`: after a claim or a completing write, `WAIT` until replicas hold it, so a
 * failover to one of them cannot lose a write the ledger acted on.
 */
import { InvalidOptionError, LedgerStorageUnavailableError } from '../../errors.js';
import { type RedisClientLike, replyText } from './connection.js';

/** How many replicas must acknowledge each write, and for how long the driver waits for them. */
export interface WaitForReplicas {
  /** Replicas (of the master that took the write) that must acknowledge it; at least 1. */
  readonly replicas: number;
  /** How long `WAIT` blocks, in ms; at least 1 (Redis reads 0 as forever). */
  readonly timeoutMs: number;
}

/** The option checked and copied on entry; null when not set. */
export function waitForReplicasOf(value: unknown): WaitForReplicas | null {
  if (value === undefined) return null;
  const { replicas, timeoutMs } = (value ?? {}) as Partial<Record<keyof WaitForReplicas, unknown>>;
  const whole = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 1;
  if (!whole(replicas) || !whole(timeoutMs)) {
    throw new InvalidOptionError(
      'waitForReplicas',
      'The Redis ledger storage setting `waitForReplicas` must be `{ replicas, timeoutMs }`, both whole numbers of at least 1',
    );
  }
  return Object.freeze({ replicas, timeoutMs });
}

/**
 * Send `WAIT` through `send` (on the connection that carried the write) and refuse the write when
 * fewer replicas than asked acknowledged it in time: the record is on the master, but a failover
 * could lose it, so the caller must not act on it (a claim does not run its tool).
 */
export async function awaitReplicas(
  operation: string,
  wait: WaitForReplicas,
  send: (args: readonly string[]) => Promise<unknown>,
): Promise<void> {
  const acknowledged = Number(await send(['WAIT', String(wait.replicas), String(wait.timeoutMs)]));
  if (acknowledged >= wait.replicas) return;
  throw new LedgerStorageUnavailableError(operation, {
    cause: new Error(
      `\`WAIT\`: ${acknowledged} of ${wait.replicas} replicas acknowledged the write within ${wait.timeoutMs} ms`,
    ),
  });
}

/**
 * The keys whose last write by this storage fewer replicas than asked acknowledged. The ledger
 * reads a record back when a write failed, to tell a write that landed from one that did not; a
 * write that landed only on the master must not count as landed, so until a later `WAIT` sees it
 * replicated, this storage refuses to read it (`LedgerStorageUnavailableError`).
 *
 * Timeline: claim written on the master → `WAIT` answers 0 → create fails → the ledger reads the
 * key back to see whether its claim landed → refused here → the tool does not run.
 */
export interface ReplicationGate {
  /** `WAIT` after a write of `key`; a shortfall marks the key and throws. */
  written(operation: string, key: string, send: (args: readonly string[]) => Promise<unknown>): Promise<void>;
  /** Before reading `key`: when its last write was not seen replicated, `WAIT` again or throw. */
  reading(
    operation: string,
    key: string,
    send: (args: readonly string[]) => Promise<unknown>,
  ): Promise<void> | undefined;
}

/** A gate for `wait`; with no wait configured, nothing is ever marked. */
export function createReplicationGate(wait: WaitForReplicas | null): ReplicationGate {
  const unconfirmed = new Set<string>();
  return {
    async written(operation, key, send) {
      if (wait === null) return;
      try {
        await awaitReplicas(operation, wait, send);
        unconfirmed.delete(key);
      } catch (error) {
        unconfirmed.add(key);
        throw error;
      }
    },
    reading(operation, key, send) {
      if (wait === null || !unconfirmed.has(key)) return undefined;
      return awaitReplicas(operation, wait, send).then(() => {
        unconfirmed.delete(key);
      });
    },
  };
}

/** A master and the replicas connected to it, as its `INFO` says. */
export interface MasterReplicas {
  /** The master as it names itself: `port <tcp_port>` (its run id when `INFO` gives no port). */
  readonly node: string;
  /** Its `connected_slaves`. */
  readonly replicas: number;
}

/** The replicas connected to the master `client` talks to; a server that does not answer in kind is a TypeError. */
export async function replicasOf(client: RedisClientLike): Promise<MasterReplicas> {
  const info = replyText(await client.sendCommand(['INFO'])) ?? '';
  const field = (name: string): string | undefined => new RegExp(`^${name}:(\\S+)`, 'm').exec(info)?.[1];
  const replicas = Number(field('connected_slaves'));
  if (!Number.isSafeInteger(replicas)) throw new TypeError('The Redis `INFO` reply has no `connected_slaves`');
  const port = field('tcp_port');
  return { node: port === undefined ? `run ${field('run_id') ?? '?'}` : `port ${port}`, replicas };
}

/** Each master's replicas, for a cluster's routing. */
export async function replicasOfMasters(routing: {
  masters(): Promise<readonly RedisClientLike[]>;
}): Promise<readonly MasterReplicas[]> {
  return Promise.all((await routing.masters()).map(replicasOf));
}
