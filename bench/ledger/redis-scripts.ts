/**
 * What the Redis driver's two scripts of a first call cost on the server, part by part, against the
 * two SETs of `@aws-lambda-powertools/idempotency`: each variant of the scripts leaves one part
 * out, on a Redis server of the bench's own (so `INFO commandstats` and `INFO cpu` count only us).
 *
 *   node bench/run-bundled.mjs bench/ledger/redis-scripts.ts            # full run (~1 min)
 *   node bench/run-bundled.mjs bench/ledger/redis-scripts.ts --quick    # short run (~10 s)
 *
 * Writes bench/results/redis-scripts.{json,md}; bench/aggregate.ts gathers them into bench/RESULTS.md.
 */
import { createClient } from 'redis';
import { CREATE_RECORD_SCRIPT, UPDATE_RECORD_SCRIPT } from '../../src/storage/redis/scripts.js';
import { createRedisStorage } from '../../src/storage/redis.js';
import { startOwnRedis } from '../../test/helpers/own-redis.js';
import { commandLine, figure, headerLines, load, us, writeArea } from '../lib/area-report.js';
import { markdownTable } from '../lib/markdown-table.js';
import { randomKey } from '../lib/random-key.js';
import { openRawRedis, type RawRedisClient } from '../lib/redis-raw.js';
import { splitWrites, type WrittenDoc } from '../lib/written-docs.js';
import { countWrites } from './write-counts.js';

const quick = process.argv.includes('--quick');
/** Pairs of calls per segment, and segments per variant (interleaved; medians are reported). */
const SEGMENT = 400;
const SEGMENTS = quick ? 6 : 40;

/** `text` with `from` replaced by `to`; throws when `from` is not there (the scripts changed). */
function without(text: string, from: RegExp | string, to = ''): string {
  const next = text.replace(from, to);
  if (next === text) throw new Error(`The scripts no longer contain ${String(from)}: update the variants`);
  return next;
}

/** `text` with each edit made in turn, by {@link without}. */
function rewritten(text: string, ...edits: [from: RegExp | string, to: string][]): string {
  return edits.reduce((current, [from, to]) => without(current, from, to), text);
}

const ZADD_LINE = /redis\.call\('ZADD'[^\n]*\n/;
const MARKER_LINE = /^if redis\.call\('HGET', KEYS\[3\][^\n]*\n/m;

/** The driver's scripts as they were before the ticket was claimed with SET NX and the update stopped reading the JSON. */
const PREVIOUS = {
  create: `
if redis.call('HGET', KEYS[3], 'id') ~= ARGV[10] then return { 'ledger' } end
local existing = redis.call('HGET', KEYS[1], 'doc')
if existing then return { 'key', existing } end
if #KEYS >= 4 then
  local holder = redis.call('GET', KEYS[4])
  if holder then
    local held = redis.call('HGET', ARGV[1] .. holder, 'doc')
    if held then return { 'ticket', held } end
    return { 'orphan', holder }
  end
  redis.call('SET', KEYS[4], ARGV[2])
end
redis.call('HSET', KEYS[1], 'doc', ARGV[3], 'v', ARGV[4], 'o', ARGV[6], 't', ARGV[7], 'k', ARGV[8], 'tk', ARGV[9])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[2])
return { 'created' }
`,
  update: `
if redis.call('HGET', KEYS[3], 'id') ~= ARGV[10] then return { 'ledger' } end
local current = redis.call('HMGET', KEYS[1], 'doc', 'v', 'tk')
if not current[1] or tonumber(current[2]) ~= tonumber(ARGV[2]) then return 0 end
local stored = current[3] or ''
if stored ~= ARGV[9] then return { 'ticket', stored } end
redis.call('HSET', KEYS[1], 'doc', ARGV[3], 'v', ARGV[4], 'o', ARGV[6], 't', ARGV[7], 'k', ARGV[8])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
redis.call('PUBLISH', KEYS[1], ARGV[4])
return 1
`,
};

/**
 * The driver's scripts with the two commands of the update a record could make unnecessary: the
 * create writes the ledger id into the record (`l`), and the update compares it in the `HMGET` that
 * reads the version instead of reading the marker (the marker only for a record without it); and
 * the update publishes only a record a poller has flagged (`w`), which the bench's records are not.
 */
const ID_IN_RECORD = {
  create: without(CREATE_RECORD_SCRIPT, "'tk', ARGV[9])", "'tk', ARGV[9], 'l', ARGV[10])"),
  update: rewritten(
    UPDATE_RECORD_SCRIPT,
    [MARKER_LINE, ''],
    [
      "redis.call('HMGET', KEYS[1], 'v', 'tk')\n",
      "redis.call('HMGET', KEYS[1], 'v', 'tk', 'l', 'w')\n" +
        "if current[3] ~= ARGV[10] and redis.call('HGET', KEYS[3], 'id') ~= ARGV[10] then return { 'ledger' } end\n",
    ],
    [/redis\.call\('PUBLISH'([^\n]*)\n/, "if current[4] then redis.call('PUBLISH'$1 end\n"],
  ),
};

/**
 * The record kept as one string (a short header, then the JSON) rather than a hash: the create
 * claims it with `SET NX GET`, the update compares the header's version with `GETRANGE`. Same
 * marker check, ticket entry, list index and notice as the driver's scripts.
 */
const STRING_RECORD = {
  create: `
if redis.call('HGET', KEYS[3], 'id') ~= ARGV[4] then return { 'ledger' } end
local existing = redis.call('SET', KEYS[1], ARGV[2], 'NX', 'GET')
if existing then return { 'key', existing } end
if #KEYS >= 4 and not redis.call('SET', KEYS[4], ARGV[1], 'NX') then
  redis.call('DEL', KEYS[1])
  return { 'ticket' }
end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return { 'created' }
`,
  update: `
if redis.call('HGET', KEYS[3], 'id') ~= ARGV[6] then return { 'ledger' } end
if redis.call('GETRANGE', KEYS[1], 0, #ARGV[2] - 1) ~= ARGV[2] then return 0 end
redis.call('SET', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
redis.call('PUBLISH', KEYS[1], ARGV[4])
return 1
`,
};

/** The driver's scripts and empty ones as functions of a library of the bench's own, for FCALL. */
const BENCH_LIBRARY = `#!lua name=hyphae_bench
redis.register_function('hyphae_bench_create', function(KEYS, ARGV)
${CREATE_RECORD_SCRIPT}
end)
redis.register_function('hyphae_bench_update', function(KEYS, ARGV)
${UPDATE_RECORD_SCRIPT}
end)
redis.register_function('hyphae_bench_empty_create', function() return { 'created' } end)
redis.register_function('hyphae_bench_empty_update', function() return 1 end)
`;

interface Variant {
  readonly name: string;
  readonly part: string;
  readonly create: string;
  readonly update: string;
  /** Functions of {@link BENCH_LIBRARY} called with FCALL instead of the scripts by EVALSHA. */
  readonly functions?: { readonly create: string; readonly update: string };
}

const VARIANTS: Variant[] = [
  { name: 'driver scripts', part: '—', create: CREATE_RECORD_SCRIPT, update: UPDATE_RECORD_SCRIPT },
  {
    name: 'previous driver scripts',
    part: 'ticket GET + SET, update reads the JSON',
    create: PREVIOUS.create,
    update: PREVIOUS.update,
  },
  {
    name: 'without the list index',
    part: 'ZADD in both scripts',
    create: without(CREATE_RECORD_SCRIPT, ZADD_LINE),
    update: without(UPDATE_RECORD_SCRIPT, ZADD_LINE),
  },
  {
    name: 'without the ticket index',
    part: 'SET NX of the ticket entry',
    create: without(CREATE_RECORD_SCRIPT, /if #KEYS >= 4[\s\S]*?\nend\n/),
    update: UPDATE_RECORD_SCRIPT,
  },
  {
    name: 'without the ledger marker check',
    part: 'HGET of the marker in both scripts',
    create: without(CREATE_RECORD_SCRIPT, MARKER_LINE),
    update: without(UPDATE_RECORD_SCRIPT, MARKER_LINE),
  },
  {
    name: 'without the notice',
    part: 'PUBLISH in the update',
    create: CREATE_RECORD_SCRIPT,
    update: without(UPDATE_RECORD_SCRIPT, /redis\.call\('PUBLISH'[^\n]*\n/),
  },
  {
    name: 'ledger id in the record',
    part: 'update: marker HGET, PUBLISH (unwatched)',
    create: ID_IN_RECORD.create,
    update: ID_IN_RECORD.update,
  },
  {
    name: 'empty scripts, same KEYS and ARGV',
    part: 'everything but EVALSHA itself',
    create: "return { 'created' }",
    update: 'return 1',
  },
  {
    name: 'driver scripts as functions',
    part: 'EVALSHA (sent as FCALL)',
    create: CREATE_RECORD_SCRIPT,
    update: UPDATE_RECORD_SCRIPT,
    functions: { create: 'hyphae_bench_create', update: 'hyphae_bench_update' },
  },
  {
    name: 'empty functions, same KEYS and ARGV',
    part: 'everything but FCALL itself',
    create: "return { 'created' }",
    update: 'return 1',
    functions: { create: 'hyphae_bench_empty_create', update: 'hyphae_bench_empty_update' },
  },
];

interface Measured {
  readonly name: string;
  readonly part: string;
  readonly clientP50Us: number;
  readonly serverUs: number;
  readonly serverCpuUs: number;
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1] ?? Number.NaN;
};

async function main(): Promise<void> {
  const command = commandLine();
  const loadAtStart = load();
  const server = await startOwnRedis();
  const client = createClient({ url: server.url });
  await client.connect();
  try {
    const info = async (section: string) => String(await client.sendCommand(['INFO', section]));
    const serverCpu = async () => {
      const text = await info('cpu');
      const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(text)?.[1] ?? Number.NaN);
      return (field('used_cpu_user') + field('used_cpu_sys')) * 1e6;
    };
    // Time inside the commands a first call sends (EVALSHA for hyphae, SET for powertools).
    const commandUs = async () => {
      const text = await info('commandstats');
      const usec = (name: string) => Number(new RegExp(`cmdstat_${name}:calls=\\d+,usec=(\\d+)`).exec(text)?.[1] ?? 0);
      return usec('fcall') + usec('evalsha') + usec('set');
    };
    const writes = await countWrites('redis', createRedisStorage({ client }, { prefix: 'docs:' }));
    const completed = writes.call.docs.at(-1) ?? '{}';
    const inFlight = writes.call.docs[0] ?? '{}';
    const ops: { variant: Omit<Variant, 'create' | 'update'>; op: () => Promise<unknown> }[] = [];
    await client.sendCommand(['FUNCTION', 'LOAD', 'REPLACE', BENCH_LIBRARY]);
    for (const [i, variant] of VARIANTS.entries()) {
      const raw = await openRawRedis(
        client,
        `v${i}:`,
        variant,
        variant.functions ? { functions: variant.functions } : {},
      );
      ops.push({ variant, op: raw.write(writes.call.docs) });
    }
    ops.push({
      variant: { name: 'record as a string', part: 'the hash (SET NX GET, GETRANGE)' },
      op: await stringRecordWrite(client, writes.call.docs),
    });
    ops.push({
      variant: { name: 'powertools: SET NX EX, SET EX', part: '(its first call)' },
      async op() {
        const key = `pt:${randomKey()}`;
        await client.sendCommand(['SET', key, inFlight.slice(0, 300), 'EX', '3600', 'NX']);
        await client.sendCommand(['SET', key, completed, 'EX', '3600']);
      },
    });
    for (const { op } of ops) for (let i = 0; i < 500; i++) await op();
    const samples = ops.map(() => ({ p50: [] as number[], server: [] as number[], cpu: [] as number[] }));
    for (let segment = 0; segment < SEGMENTS; segment++) {
      for (const [i, { op }] of ops.entries()) {
        const [cpu0, cmd0] = [await serverCpu(), await commandUs()];
        const times: number[] = [];
        for (let n = 0; n < SEGMENT; n++) {
          const started = performance.now();
          await op();
          times.push((performance.now() - started) * 1000);
        }
        const [cpu1, cmd1] = [await serverCpu(), await commandUs()];
        const sample = samples[i];
        sample?.p50.push(median(times));
        sample?.server.push((cmd1 - cmd0) / SEGMENT);
        sample?.cpu.push((cpu1 - cpu0) / SEGMENT);
      }
    }
    const measured: Measured[] = ops.map(({ variant }, i) => ({
      name: variant.name,
      part: variant.part,
      clientP50Us: median(samples[i]?.p50 ?? []),
      serverUs: median(samples[i]?.server ?? []),
      serverCpuUs: median(samples[i]?.cpu ?? []),
    }));
    for (const m of measured) {
      console.log(
        `  ${m.name.padEnd(36)} client p50 ${us(m.clientP50Us).padStart(6)} µs  in commands ${us(m.serverUs).padStart(6)} µs  server CPU ${us(m.serverCpuUs).padStart(6)} µs`,
      );
    }
    await writeReport(command, loadAtStart, measured);
  } finally {
    await client.close();
    await server.stop();
  }
  console.log('wrote bench/results/redis-scripts.json and bench/results/redis-scripts.md');
}

/**
 * A first call on {@link STRING_RECORD}: the create, then the compare-and-set, with the documents the
 * driver sends behind a header of version, outcome, kind, ticket and tool.
 */
async function stringRecordWrite(client: RawRedisClient, docs: readonly string[]): Promise<() => Promise<void>> {
  const { first, rest } = splitWrites(docs);
  const shas = await Promise.all(
    [STRING_RECORD.create, STRING_RECORD.update].map((script) => client.sendCommand(['SCRIPT', 'LOAD', script])),
  );
  const [createSha, updateSha] = shas.map(String);
  const prefix = 'string:';
  await client.sendCommand(['HSET', `${prefix}ledger`, 'id', 'bench-raw', 'at', '0']);
  const value = (write: WrittenDoc, ticket: string) =>
    `${write.version}|${write.outcome}|${write.kind}|=${ticket}|${write.tool}\n${write.doc}`;
  return async () => {
    const key = randomKey();
    const keys = [`${prefix}rec:${key}`, `${prefix}updated`, `${prefix}ledger`];
    const created = await client.sendCommand([
      'EVALSHA',
      String(createSha),
      '4',
      ...keys,
      `${prefix}ticket:${key}`,
      key,
      value(first, key),
      String(Date.now()),
      'bench-raw',
    ]);
    if (!Array.isArray(created) || created[0] !== 'created') throw new Error('String create met an existing record');
    let version = first.version;
    for (const write of rest) {
      const args = [key, `${version}|`, value(write, key), String(write.version), String(Date.now()), 'bench-raw'];
      if ((await client.sendCommand(['EVALSHA', String(updateSha), '3', ...keys, ...args])) !== 1)
        throw new Error('String CAS update lost');
      version = write.version;
    }
  };
}

async function writeReport(command: string, loadAtStart: number, measured: readonly Measured[]): Promise<void> {
  const base = measured[0];
  const powertools = measured.at(-1);
  if (base === undefined || powertools === undefined) throw new Error('nothing measured');
  const rows = measured.map((m) => [
    m.name,
    m.part,
    us(m.clientP50Us),
    us(m.serverUs),
    m === base ? '—' : us(base.serverUs - m.serverUs),
    us(m.serverCpuUs),
  ]);
  const figures = measured.map((m) =>
    figure(`redis scripts ${m.name}: µs in commands per first call`, 'µs', m.serverUs, powertools.serverUs),
  );
  const markdown = [
    "# The Redis driver's scripts, part by part",
    '',
    ...headerLines(command, loadAtStart, new Date()),
    `- Plan: ${quick ? 'quick' : 'full'} mode; ${SEGMENTS} interleaved segments of ${SEGMENT} first calls per variant, medians over the segments`,
    '',
    `The two scripts of a first call (create, then the completing compare-and-set), sent with EVALSHA
through one node-redis client to a \`redis-server\` of the bench's own (no persistence, nothing else on it),
with the KEYS, ARGV and documents the driver sends. Each variant leaves one part of the scripts out or
does it another way, so "saved" (driver scripts − variant) is what that part costs inside the server;
the previous scripts row is negative because they cost more. Three rows try other designs: an
update two commands shorter (the ledger id kept in the record and compared in the command that reads
the version instead of reading the marker, and the notice sent only for a record a poller flagged),
the same scripts as Redis Functions (FCALL of a library loaded once), and the record kept as one
string (a header, then the JSON) claimed with \`SET NX GET\` instead of a hash. The last row is powertools' first
call (two SETs of values of the same size). "In commands" is the time \`INFO commandstats\` counts in
EVALSHA, FCALL and SET per first call; "server CPU" is the server process's user + system CPU per
first call (\`INFO cpu\`), which also counts reading and answering the two commands.`,
    '',
    ...markdownTable(
      [
        { title: 'variant' },
        { title: 'left out' },
        { title: 'client p50 µs', align: 'right' },
        { title: 'in commands µs', align: 'right' },
        { title: 'saved µs', align: 'right' },
        { title: 'server CPU µs', align: 'right' },
      ],
      rows,
    ),
    '',
  ].join('\n');
  await writeArea('redis-scripts', figures, markdown);
}

await main();
