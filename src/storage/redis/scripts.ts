/**
 * The Lua scripts of the Redis driver: one script per atomic operation.
 *
 * Layout under a prefix `p` (default `hyphae:`):
 * - `p rec:<key>`: a hash per record with fields `doc` (record JSON), `v` (version), `o` (outcome),
 *   `t` (tool), `k` (kind) and `tk` (ticket marker: `''` for none, `'=' .. ticketKey` otherwise);
 * - `p ticket:<ticketKey>`: a string holding the key of the record that claimed the ticket;
 * - `p updated`: a sorted set of record keys scored by `updatedAt`, for `list`;
 * - `p ledger`: the ledger marker, a hash with fields `id` (a UUID) and `at` (epoch ms), written once
 *   when the store is initialised. Every write checks it holds the id the driver met, so a server
 *   restarted empty, flushed or swapped is refused rather than taken for a new ledger.
 *
 * Every update is also published, with its new version, on the channel named like the record's
 * hash (`p rec:<key>`; channels and keys are separate namespaces), so pollers of that record in
 * other processes can read it again at once; on Redis Cluster as a sharded notice (`SPUBLISH`).
 *
 * Some scripts read record hashes named by the index rather than by KEYS, so every key a script
 * touches must share its slot on Redis Cluster: `cluster-storage.ts` runs these scripts per bucket
 * (`p{b}rec:`, `p{b}updated`, ...), and a hash-tagged prefix puts the whole ledger in one slot.
 */

/**
 * Initialise the ledger marker when the store holds none, or read the one it holds.
 *
 * KEYS[1]  ledger marker (`p ledger`)
 * KEYS[2]  list index (`p updated`), to tell a store with records from an empty one
 * ARGV[1]  the id to write when there is none
 * ARGV[2]  epoch ms of the initialisation
 * ARGV[3]  `'1'` to write the marker when there is none, `'0'` to only read it
 * Returns  `{ 'exists', id, at }`, `{ 'created', id, at }` or `{ 'missing', records }` (none, and
 *          ARGV[3] is `'0'`; records is `1` when the store holds records, else `0`)
 */
export const INIT_LEDGER_SCRIPT = `
local id = redis.call('HGET', KEYS[1], 'id')
if id then return { 'exists', id, redis.call('HGET', KEYS[1], 'at') or '0' } end
if ARGV[3] ~= '1' then return { 'missing', tostring(redis.call('EXISTS', KEYS[2])) } end
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'at', ARGV[2])
return { 'created', ARGV[1], ARGV[2] }
`;

/**
 * Insert a record unless its key exists or another record holds its ticket.
 *
 * A ticket index entry whose record is gone is never claimed again: the record it named was lost
 * (evicted, deleted), and taking the ticket would run its call a second time. The entry is claimed
 * with `SET NX` (one command on the fresh path) as the last check: when it is refused nothing has
 * been written, and the holder is read.
 *
 * A record that exists is returned before the marker is read: meeting it writes nothing, and reads
 * do not check the marker (`get` is a plain `HGET`), so a replay costs one command in the script.
 * Every path that writes checks the marker first; a server restarted empty or flushed holds no
 * record, so its creates reach the check and are refused.
 *
 * KEYS[1]  record hash (`p rec:<key>`)
 * KEYS[2]  list index (`p updated`)
 * KEYS[3]  ledger marker (`p ledger`)
 * KEYS[4]  ticket index entry (`p ticket:<ticketKey>`), only when the record has a ticket
 * ARGV[1]  record hash prefix (`p rec:`), to read the record holding the ticket
 * ARGV[2]  key
 * ARGV[3]  record JSON
 * ARGV[4]  version
 * ARGV[5]  updatedAt (the list score)
 * ARGV[6]  outcome
 * ARGV[7]  tool
 * ARGV[8]  kind
 * ARGV[9]  ticket marker (`''` or `'=' .. ticketKey`)
 * ARGV[10] the ledger id the marker must hold
 * Returns  `{ 'created' }`, `{ 'key', existing JSON }`, `{ 'ticket', JSON of the holder }`,
 *          `{ 'orphan', key of the vanished holder }` or `{ 'ledger' }` (the marker is gone or another)
 */
export const CREATE_RECORD_SCRIPT = `
local existing = redis.call('HGET', KEYS[1], 'doc')
if existing then return { 'key', existing } end
if redis.call('HGET', KEYS[3], 'id') ~= ARGV[10] then return { 'ledger' } end
if #KEYS >= 4 and not redis.call('SET', KEYS[4], ARGV[2], 'NX') then
  local holder = redis.call('GET', KEYS[4])
  local held = redis.call('HGET', ARGV[1] .. holder, 'doc')
  if held then return { 'ticket', held } end
  return { 'orphan', holder }
end
redis.call('HSET', KEYS[1], 'doc', ARGV[3], 'v', ARGV[4], 'o', ARGV[6], 't', ARGV[7], 'k', ARGV[8], 'tk', ARGV[9])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[2])
return { 'created' }
`;

/**
 * Replace a record when its stored version is the expected one (compare-and-set).
 *
 * The ticket index entry is never moved: when the new JSON names another ticket than the stored one,
 * nothing is written and the stored marker is returned so the caller can re-encode and retry.
 * A record exists when its hash has `v` (every create writes it), so the stored JSON is not read.
 *
 * KEYS[1]  record hash (`p rec:<key>`)
 * KEYS[2]  list index (`p updated`)
 * KEYS[3]  ledger marker (`p ledger`)
 * ARGV[1]  key
 * ARGV[2]  expected version
 * ARGV[3]  record JSON
 * ARGV[4]  new version
 * ARGV[5]  updatedAt (the list score)
 * ARGV[6]  outcome
 * ARGV[7]  tool
 * ARGV[8]  kind
 * ARGV[9]  ticket marker of the JSON (`''` or `'=' .. ticketKey`)
 * ARGV[10] the ledger id the marker must hold
 * Returns  1 when written (and published on the channel KEYS[1]), 0 when the record is absent or
 *          its version differs, `{ 'ticket', stored marker }` when the JSON names another ticket
 *          (nothing written), `{ 'ledger' }` when the marker is gone or another (nothing written)
 */
export const UPDATE_RECORD_SCRIPT: string = updateRecordScript("redis.call('PUBLISH', KEYS[1], ARGV[4])");

/**
 * {@link UPDATE_RECORD_SCRIPT} for a cluster client: the notice goes out with `SPUBLISH` (sharded
 * pub/sub, Redis 7), on the channel of the record's own slot, so it stays on the shard that holds the
 * record. A plain `PUBLISH` on Redis Cluster is forwarded over the cluster bus to every node, and
 * each write would cost every master. A server without `SPUBLISH` answers the `pcall` with an error
 * the script ignores: the write stands, and pollers poll on their interval.
 */
export const SHARDED_UPDATE_RECORD_SCRIPT: string = updateRecordScript("redis.pcall('SPUBLISH', KEYS[1], ARGV[4])");

function updateRecordScript(notice: string): string {
  return `
if redis.call('HGET', KEYS[3], 'id') ~= ARGV[10] then return { 'ledger' } end
local current = redis.call('HMGET', KEYS[1], 'v', 'tk')
if not current[1] or tonumber(current[1]) ~= tonumber(ARGV[2]) then return 0 end
local stored = current[2] or ''
if stored ~= ARGV[9] then return { 'ticket', stored } end
redis.call('HSET', KEYS[1], 'doc', ARGV[3], 'v', ARGV[4], 'o', ARGV[6], 't', ARGV[7], 'k', ARGV[8])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
${notice}
return 1
`;
}

/**
 * Read the record holding a ticket index entry.
 *
 * KEYS[1]  ticket index entry (`p ticket:<ticketKey>`)
 * KEYS[2]  ledger marker (`p ledger`)
 * ARGV[1]  record hash prefix (`p rec:`)
 * ARGV[2]  the ledger id the marker must hold
 * Returns  `{ 'found', key, JSON }`; nil when no record holds the ticket; `{ 'orphan', key }` when the entry
 *          names a record that is gone; `{ 'ledger' }` when the marker is gone or another
 */
export const FIND_BY_TICKET_SCRIPT = `
if redis.call('HGET', KEYS[2], 'id') ~= ARGV[2] then return { 'ledger' } end
local holder = redis.call('GET', KEYS[1])
if not holder then return false end
local doc = redis.call('HGET', ARGV[1] .. holder, 'doc')
if not doc then return { 'orphan', holder } end
return { 'found', holder, doc }
`;

/**
 * Walk the list index newest first from a position and collect records that pass the filters.
 *
 * It examines at most ARGV[6] index entries per call so a sparse filter never holds the server for
 * long; the caller resumes from the returned position until it has enough records.
 *
 * KEYS[1]  list index (`p updated`)
 * ARGV[1]  record hash prefix (`p rec:`)
 * ARGV[2]  upper score bound: `+inf`, `(N` (exclusive) or `N` (inclusive, see ARGV[3])
 * ARGV[3]  resume marker: `''`, or `'=' .. key` to skip the members scored ARGV[2] that sort at or
 *          after `key` (members of one score are ordered bytewise, newest-first walks them descending)
 * ARGV[4]  lower score bound: `-inf` or `N` (inclusive)
 * ARGV[5]  records wanted
 * ARGV[6]  index entries to examine at most
 * ARGV[7]  tool filter (`''` or `'=' .. tool`)
 * ARGV[8]  kind filter (`''` or `'=' .. kind`)
 * ARGV[9..] outcomes accepted (none given: all)
 * Returns  `{ 'done' | 'more', last score, last member, key1, score1, JSON1, key2, ... }`, where the
 *          last score and member are the position to resume from after `'more'`;
 *          or `{ 'missing', key }` when the index names a key that has no record
 */
export const LIST_PAGE_SCRIPT = `
local function below(a, b)
  if a == b then return false end
  local n = math.min(#a, #b)
  for i = 1, n do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x < y end
  end
  return #a < #b
end

local index, recordPrefix, upper, lower = KEYS[1], ARGV[1], ARGV[2], ARGV[4]
local wanted, budget = tonumber(ARGV[5]), tonumber(ARGV[6])
local tool, kind = ARGV[7], ARGV[8]
local outcomes = nil
if #ARGV >= 9 then
  outcomes = {}
  for i = 9, #ARGV do outcomes[ARGV[i]] = true end
end

local offset = 0
if ARGV[3] ~= '' then
  -- Binary search, in O(log^2 n), for the first member of the tie group that sorts below the resume key.
  local after = string.sub(ARGV[3], 2)
  local lo, hi = 0, redis.call('ZCOUNT', index, upper, upper)
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    local member = redis.call('ZRANGE', index, upper, upper, 'BYSCORE', 'REV', 'LIMIT', mid, 1)[1]
    if member and below(member, after) then hi = mid else lo = mid + 1 end
  end
  offset = lo
end

local out = { 'more', false, false }
local found, examined = 0, 0
while found < wanted and examined < budget do
  local chunk = math.min(100, budget - examined)
  local batch = redis.call('ZRANGE', index, upper, lower, 'BYSCORE', 'REV', 'LIMIT', offset, chunk, 'WITHSCORES')
  local size = #batch / 2
  for i = 1, #batch, 2 do
    local member, score = batch[i], batch[i + 1]
    examined = examined + 1
    out[2], out[3] = score, member
    local f = redis.call('HMGET', recordPrefix .. member, 'doc', 'o', 't', 'k')
    if not f[1] then return { 'missing', member } end
    if (outcomes == nil or (f[2] and outcomes[f[2]]))
      and (tool == '' or (f[3] and '=' .. f[3] == tool))
      and (kind == '' or (f[4] and '=' .. f[4] == kind)) then
      found = found + 1
      out[#out + 1] = member
      out[#out + 1] = score
      out[#out + 1] = f[1]
      if found >= wanted then return out end
    end
  end
  if size < chunk then
    out[1] = 'done'
    return out
  end
  offset = offset + size
end
return out
`;
