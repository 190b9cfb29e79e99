/**
 * Claim owner ids: `<prefix>:<random>#<n>`, where the prefix is the ledger's `ownerId` (default
 * `host:pid`), the random part is drawn once per ledger and `n` counts its claims. Owner ids never
 * repeat, even across ledgers that share a prefix: a claim recognises its own record by its owner.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

const RANDOM_BYTES = 8;
const OWN_LEDGER = new RegExp(`^:[0-9a-f]{${RANDOM_BYTES * 2}}#\\d+$`);

/** The owner id prefix of a new ledger (everything before `#`). */
export function newOwnerPrefix(ownerId: string | undefined): string {
  return `${ownerId ?? `${hostname()}:${process.pid}`}:${randomBytes(RANDOM_BYTES).toString('hex')}`;
}

/**
 * True when the owner id `held` belongs to `owner`: the owner id itself, one ledger's claims (the
 * part before `#`), or every ledger whose prefix is `owner` (a worker's `ownerId`, or `host:pid`
 * for all the ledgers of one process). A longer name that merely starts the same way never matches.
 */
export function heldBy(held: string | null, owner: string): boolean {
  if (held === null || owner === '') return false;
  if (held === owner) return true;
  if (!held.startsWith(owner)) return false;
  const rest = held.slice(owner.length);
  return /^#\d+$/.test(rest) || OWN_LEDGER.test(rest);
}
