/**
 * What the Redis driver checks when it first connects: the server's `maxmemory-policy` (an
 * evicting one drops ledger records silently) and the ledger marker (initialised once, then
 * required by every write).
 */
import { randomUUID } from 'node:crypto';
import { LedgerMissingError, LedgerStorageCorruptError } from '../../errors.js';
import type { LedgerIdentity, StorageHazard } from '../ledger-storage.js';
import { type RedisClientLike, replyArray, replyText, type ScriptRunner } from './connection.js';
import { INIT_LEDGER_SCRIPT } from './scripts.js';

/** What the first connection found. */
export interface RedisPreflight {
  readonly identity: LedgerIdentity;
  readonly hazards: readonly StorageHazard[];
}

/** The settings the checks read. */
export interface PreflightSettings {
  /** The ledger marker key (`<prefix>ledger`). */
  readonly markerKey: string;
  /** The list index key (`<prefix>updated`), present when the store holds records. */
  readonly indexKey: string;
  /** Write the marker when the store holds none; false refuses such a store. */
  readonly create: boolean;
  /** The user accepted an evicting (or unreadable) `maxmemory-policy`. */
  readonly allowEviction: boolean;
}

/** A reply the server sent as an error (a refused or unknown command), not a lost connection. */
function isServerRefusal(error: unknown): boolean {
  return error instanceof Error && /^(ERR|NOPERM|WRONGPASS)\b|unknown command/i.test(error.message);
}

/**
 * The value of `maxmemory-policy` in a CONFIG GET reply: an array (RESP2), a Map or an object
 * (RESP3); null when the reply is well formed but holds no policy (the server does not expose it).
 * Anything else is not a CONFIG GET reply (a connection broken mid-reply): it throws, so the check
 * runs again at the next operation instead of remembering a policy it never read.
 */
function policyOf(reply: unknown): string | null {
  if (Array.isArray(reply)) return reply.length === 0 ? null : replyText(reply[1] ?? null);
  if (reply instanceof Map) return reply.size === 0 ? null : replyText(reply.get('maxmemory-policy') ?? null);
  if (typeof reply === 'object' && reply !== null) {
    return replyText((reply as Record<string, unknown>)['maxmemory-policy'] ?? null);
  }
  throw new TypeError(`Unexpected reply to \`CONFIG GET maxmemory-policy\`: ${String(reply)}`);
}

/**
 * Whether a preflight's hazards may be remembered: an unknown policy that was not accepted is
 * checked again at the next operation (the reply may have been cut short), so a server that answers
 * later is not refused for good.
 */
export function keepHazards(hazards: readonly StorageHazard[]): boolean {
  return !hazards.some((hazard) => hazard.code === 'maxmemory_policy_unknown' && !hazard.accepted);
}

const ACCEPT = 'pass `allowEviction: true` (config: `allow_eviction: true`) to accept the risk';

/**
 * The hazard of the server's `maxmemory-policy`, if any: anything but `noeviction` may evict a
 * completed record, after which its call runs again. When CONFIG is disabled or renamed the policy
 * is unknown, and counts as evicting.
 */
export async function maxmemoryHazards(client: RedisClientLike, allowEviction: boolean): Promise<StorageHazard[]> {
  let policy: string | null;
  try {
    policy = policyOf(await client.sendCommand(['CONFIG', 'GET', 'maxmemory-policy']));
  } catch (error) {
    if (!isServerRefusal(error)) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    return [
      {
        code: 'maxmemory_policy_unknown',
        message: `Redis \`maxmemory-policy\` could not be read (\`CONFIG GET\` was refused: ${reason}), so it may evict ledger records; make sure the server runs \`noeviction\` and ${ACCEPT}`,
        accepted: allowEviction,
      },
    ];
  }
  if (policy === 'noeviction') return [];
  return [
    {
      code: policy === null ? 'maxmemory_policy_unknown' : 'evicting_maxmemory_policy',
      message:
        policy === null
          ? `Redis \`maxmemory-policy\` could not be read from the \`CONFIG GET\` reply, so it may evict ledger records; make sure the server runs \`noeviction\` and ${ACCEPT}`
          : `Redis \`maxmemory-policy\` is \`${policy}\`: at \`maxmemory\` the server evicts keys, a completed call whose record was evicted runs again; set \`maxmemory-policy noeviction\`, or ${ACCEPT}`,
      accepted: allowEviction,
    },
  ];
}

/** Initialise the ledger marker, or read the one the store holds. */
export async function ledgerIdentity(
  client: RedisClientLike,
  scripts: ScriptRunner,
  settings: PreflightSettings,
): Promise<LedgerIdentity> {
  const args = [randomUUID(), String(Date.now()), settings.create ? '1' : '0'];
  const keys = [settings.markerKey, settings.indexKey];
  const reply = replyArray(await scripts.run(client, INIT_LEDGER_SCRIPT, keys, args)).map(replyText);
  const [status, ledgerId, at] = reply;
  if (status === 'missing') {
    // Records without a marker: a store written before ledger markers existed, or one whose
    // marker was evicted (and records with it). Neither is opened without someone deciding.
    const reason =
      ledgerId === '1'
        ? 'the store holds records but no ledger marker (written by an older hyphae: run `hyphae init --stores` once to adopt it; or its marker was evicted)'
        : 'the store holds no ledger (never initialised, or emptied: a restart without persistence, a FLUSHALL, an eviction)';
    const ErrorClass = ledgerId === '1' ? LedgerStorageCorruptError : LedgerMissingError;
    throw new ErrorClass(`redis:${settings.markerKey}`, `${reason} and the storage was opened with \`create: false\``);
  }
  if ((status !== 'exists' && status !== 'created') || typeof ledgerId !== 'string') {
    throw new TypeError('Unexpected reply from the Redis ledger marker script');
  }
  return { ledgerId, createdAt: Number(at) };
}

/** Both checks, on the first connection. */
export async function runPreflight(
  client: RedisClientLike,
  scripts: ScriptRunner,
  settings: PreflightSettings,
): Promise<RedisPreflight> {
  const hazards = await maxmemoryHazards(client, settings.allowEviction);
  return { hazards, identity: await ledgerIdentity(client, scripts, settings) };
}

/** The error of a write refused because the marker is gone or names another ledger. */
export function markerGoneError(markerKey: string, ledgerId: string): LedgerStorageCorruptError {
  return new LedgerStorageCorruptError(
    `redis:${markerKey}`,
    `the ledger marker no longer holds \`${ledgerId}\` (the server restarted empty, was flushed or replaced, or evicted keys): records may be lost, so nothing was written`,
  );
}

/** The error of a ticket index entry whose record is gone. */
export function orphanTicketError(location: string): LedgerStorageCorruptError {
  return new LedgerStorageCorruptError(
    location,
    'the ticket index names a record that is gone (evicted or deleted); its call is not claimed again',
  );
}
