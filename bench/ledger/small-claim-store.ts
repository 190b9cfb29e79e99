/**
 * A prototype Redis layout for the first-call target of the Powertools comparison, measured through
 * the whole ledger: the claim is one plain `SET key value NX GET` of a small value (what the gate
 * reads: version, fence, outcome, boundary, classes, owner, lease, fingerprint), the outcome write a
 * compare-and-set script of one `GET` and one `SET` of the record in the compact form. No Lua on the
 * claim, no other key touched.
 *
 * What it drops, each of which the driver's scripts keep (so it is a bench prototype, not a driver):
 * - the ticket index: a tool call id reused with other arguments is not caught (`findByTicket` finds
 *   nothing), and a call whose key changed (a policy change) is not found by its call id;
 * - the ledger marker: a server restarted empty or flushed is taken for a new ledger, so a call
 *   redispatched after it runs again;
 * - the list index: `list` finds nothing, so `hyphae transitions`, the dashboard and
 *   `markWorkerDead({ owner })` do not see the records;
 * - the full record while a call runs: until its outcome is written, a reader sees the claim's
 *   fields only (no scope, ticket, decision, agent or policy version);
 * - the change notice (`PUBLISH`): pollers in other processes wait out their poll interval.
 */
import type { CreateResult, LedgerStorage, ListPage, TransitionRecord } from '../../src/index.js';
import { decodeRecord, encodeRecord } from '../../src/storage/record-codec.js';

/** The slice of a node-redis client the prototype uses. */
export interface SmallClaimClient {
  sendCommand(args: string[]): Promise<unknown>;
}

/** Compare the version that opens the stored value, then replace it. */
const CAS_SCRIPT = `
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local bar = string.find(current, '|', 1, true)
if not bar or string.sub(current, 1, bar - 1) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1
`;

/** The claim's value: `version|` then the JSON of the members a gate reads. */
function claimValue(r: TransitionRecord): string {
  return `${r.version}|${JSON.stringify({
    s: 1,
    tool: r.tool,
    argsFingerprint: r.argsFingerprint,
    sideEffectClass: r.sideEffectClass,
    retryPermission: r.retryPermission,
    spendability: r.spendability,
    outcome: r.outcome,
    boundary: r.boundary,
    owner: r.owner,
    fence: r.fence,
    leaseUntil: r.leaseUntil,
    at: r.firstAttemptAt,
  })}`;
}

/** A record from a stored value: a full record, or a claim filled out to one. */
function readValue(key: string, value: string): TransitionRecord {
  const bar = value.indexOf('|');
  const body = value.slice(bar + 1);
  if (!body.startsWith('{"s":1')) return decodeRecord(body, `small-claim:${key}`);
  const c = JSON.parse(body) as Record<string, unknown>;
  const at = c.at as number;
  return {
    key,
    kind: 'tool',
    tool: c.tool as string,
    agentId: '',
    policyVersion: '',
    scope: {},
    ticket: null,
    ticketKey: null,
    argsFingerprint: c.argsFingerprint as string,
    sideEffectClass: c.sideEffectClass as TransitionRecord['sideEffectClass'],
    retryPermission: c.retryPermission as TransitionRecord['retryPermission'],
    spendability: c.spendability as TransitionRecord['spendability'],
    outcome: c.outcome as TransitionRecord['outcome'],
    boundary: c.boundary as TransitionRecord['boundary'],
    owner: c.owner as string | null,
    fence: c.fence as number,
    version: Number(value.slice(0, bar)),
    leaseUntil: c.leaseUntil as number | null,
    lastHeartbeatAt: at,
    attempts: 1,
    error: null,
    externalOperationRef: null,
    providerIdempotencyKey: null,
    firstAttemptAt: at,
    operatorResolution: null,
    receiptRef: null,
    createdAt: at,
    updatedAt: at,
    completedAt: null,
  };
}

/** The prototype store over `client`, every key under `prefix`. */
export async function smallClaimStorage(client: SmallClaimClient, prefix: string): Promise<LedgerStorage> {
  const sha = String(await client.sendCommand(['SCRIPT', 'LOAD', CAS_SCRIPT]));
  const text = (reply: unknown): string | null =>
    reply === null || reply === undefined ? null : typeof reply === 'string' ? reply : String(reply);
  const empty: ListPage = { records: [], nextCursor: null };
  return {
    capabilities: Object.freeze({ name: 'small-claim prototype', crossProcess: true, durable: false }),
    async get(key) {
      const value = text(await client.sendCommand(['GET', `${prefix}${key}`]));
      return value === null ? null : readValue(key, value);
    },
    async create(record): Promise<CreateResult> {
      const stored = text(await client.sendCommand(['SET', `${prefix}${record.key}`, claimValue(record), 'NX', 'GET']));
      if (stored === null) return { created: true, record };
      return { created: false, conflict: 'key', record: readValue(record.key, stored) };
    },
    async update(key, expectedVersion, next) {
      const value = `${next.version}|${encodeRecord(next)}`;
      return (await client.sendCommand(['EVALSHA', sha, '1', `${prefix}${key}`, String(expectedVersion), value])) === 1;
    },
    async findByTicket() {
      return null;
    },
    async list() {
      return empty;
    },
    async close() {},
  };
}
