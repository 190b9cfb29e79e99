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
import { openRawRedis } from '../lib/redis-raw.js';
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

interface Variant {
  readonly name: string;
  readonly part: string;
  readonly create: string;
  readonly update: string;
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
    name: 'empty scripts, same KEYS and ARGV',
    part: 'everything but EVALSHA itself',
    create: "return { 'created' }",
    update: 'return 1',
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
      return usec('evalsha') + usec('set');
    };
    const writes = await countWrites('redis', createRedisStorage({ client }, { prefix: 'docs:' }));
    const completed = writes.call.docs.at(-1) ?? '{}';
    const inFlight = writes.call.docs[0] ?? '{}';
    const ops: { variant: Omit<Variant, 'create' | 'update'>; op: () => Promise<unknown> }[] = [];
    for (const [i, variant] of VARIANTS.entries()) {
      const raw = await openRawRedis(client, `v${i}:`, variant);
      ops.push({ variant, op: raw.write(writes.call.docs) });
    }
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
with the KEYS, ARGV and documents the driver sends. Each variant leaves one part of the scripts out, so
"saved" (driver scripts − variant) is what that part costs inside the server; the previous scripts row
is negative because they cost more. The last row is powertools' first call (two SETs of values of the
same size). "In commands" is the time \`INFO commandstats\` counts in EVALSHA (and SET) per
first call; "server CPU" is the server process's user + system CPU per first call (\`INFO cpu\`), which also
counts reading and answering the two commands.`,
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
