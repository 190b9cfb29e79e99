/**
 * Where a ledgered call's time goes on Redis, layer by layer, beside `@aws-lambda-powertools/idempotency`
 * on the same server: the bare round trips, then the ledger over a store that costs one round trip
 * per write and keeps records in memory, then that store encoding records as the Redis driver does,
 * the driver's scripts alone, and the whole driver. Each layer's cost is the difference between two
 * rows measured in the same run.
 *
 *   node bench/run-bundled.mjs bench/ledger/first-call-parts.ts            # full run (~1 min)
 *   node bench/run-bundled.mjs bench/ledger/first-call-parts.ts --quick    # short run (~10 s)
 *
 * Writes bench/results/first-call-parts.{json,md}; bench/aggregate.ts gathers them into bench/RESULTS.md.
 */
import type { LedgerStorage } from '../../src/index.js';
import type { TransitionRecord } from '../../src/records/transition-record.js';
import { createdResult, decodeRecord, encodeRecord } from '../../src/storage/record-codec.js';
import { commandLine, figure, headerLines, load, us, writeArea } from '../lib/area-report.js';
import type { Stats } from '../lib/histogram.js';
import { markdownTable } from '../lib/markdown-table.js';
import { measureCases, roundsText, type TimedCase } from '../lib/measure.js';
import { type BenchRedisClient, onBenchRedis } from '../lib/redis-bench-client.js';
import { openRawRedis } from '../lib/redis-raw.js';
import { ledgerCases } from './cases.js';
import { type CallAndReplay, comparisonPlan, powertoolsComparison } from './powertools-cases.js';

const quick = process.argv.includes('--quick');
const plan = comparisonPlan(quick);

/**
 * The round trip a write of the bench store costs: `expectedVersion` is undefined for a create.
 * `doc` is the encoded record, or null when the store keeps objects.
 */
type WriteTrip = (record: TransitionRecord, doc: string | null, expectedVersion?: number) => Promise<unknown>;

/** One `PING` per write. */
const pingTrip =
  (client: BenchRedisClient): WriteTrip =>
  () =>
    client.sendCommand(['PING']);

/**
 * One EVALSHA per write of a script that does nothing, with the KEYS and ARGV the raw baseline sends
 * as the driver does (`bench/lib/redis-raw.ts`), the encoded record among them.
 */
async function emptyScriptTrip(client: BenchRedisClient, prefix: string): Promise<WriteTrip> {
  const raw = await openRawRedis(client, prefix, { create: 'return 1', update: 'return 1' });
  return (record, doc, expectedVersion) => {
    const { key, version, outcome, tool, kind } = record;
    const write = { doc: doc ?? '', version, outcome, tool, kind };
    const ticketKey = record.ticketKey ?? '';
    return expectedVersion === undefined
      ? raw.create(key, ticketKey, write)
      : raw.update(key, ticketKey, expectedVersion, write);
  };
}

/**
 * A store that costs one round trip per create and per update (`trip`: a `PING` unless given) and
 * keeps its records in a map: the ledger's own work over a network store, without a driver. It keeps
 * the records it is given (`objects`: no copy, which the memory store would make), or keeps each as
 * the Redis driver does (`json`): a document encoded on every write, decoded when a create meets it,
 * and the version beside it, which an update compares without decoding the document (the driver's
 * hash has `v`). With {@link emptyScriptTrip} as its round trip, it is the least any design that runs
 * one Lua script per write can cost, whatever its scripts do.
 */
function pingStore(client: BenchRedisClient, keep: 'objects' | 'json', trip = pingTrip(client)): LedgerStorage {
  const records = new Map<string, TransitionRecord | { readonly doc: string; readonly version: number }>();
  const tickets = new Map<string, string>();
  const read = (key: string): TransitionRecord | null => {
    const kept = records.get(key);
    if (kept === undefined) return null;
    return 'doc' in kept ? decodeRecord(kept.doc, key) : kept;
  };
  return {
    capabilities: { name: `ping+${keep}`, crossProcess: true, durable: true },
    async create(record) {
      const doc = keep === 'json' ? encodeRecord(record) : null;
      await trip(record, doc);
      const met = read(record.key);
      if (met !== null) return { created: false, conflict: 'key', record: met };
      const holder = record.ticketKey === null ? undefined : tickets.get(record.ticketKey);
      if (holder !== undefined) return { created: false, conflict: 'ticket', record: read(holder) as TransitionRecord };
      records.set(record.key, doc === null ? record : { doc, version: record.version });
      if (record.ticketKey !== null) tickets.set(record.ticketKey, record.key);
      return doc === null ? { created: true, record } : createdResult(doc, record.key);
    },
    async update(key, expectedVersion, next) {
      const doc = keep === 'json' ? encodeRecord(next) : null;
      await trip(next, doc, expectedVersion);
      if (records.get(key)?.version !== expectedVersion) return false;
      records.set(key, doc === null ? next : { doc, version: next.version });
      return true;
    },
    get: async (key) => read(key),
    findByTicket: async (ticketKey) => {
      const key = tickets.get(ticketKey);
      return key === undefined ? null : read(key);
    },
    list: () => Promise.reject(new Error('The first-call bench store does not list')),
    close: async () => undefined,
  };
}

/** The rows of each kind of call, in ladder order. */
const ROWS = [
  'roundTrips',
  'ledgerOverPing',
  'withCodec',
  'emptyScripts',
  'scripts',
  'hyphae',
  'powertoolsRaw',
  'powertools',
] as const;
type Row = (typeof ROWS)[number];
const KINDS = [
  ['call', 'first call (a new key each time)'],
  ['replay', 'replay (the same key again)'],
] as const;
type Kind = (typeof KINDS)[number][0];

async function ladders(client: BenchRedisClient, run: string): Promise<Record<Kind, Record<Row, TimedCase>>> {
  const comparison = await powertoolsComparison(client, run);
  // A fresh store each round (ledgerCases asks for one), so its map does not grow for the whole run.
  const overPing = ledgerCases('ledger over a PING-per-write store', () => pingStore(client, 'objects'));
  const withCodec = ledgerCases('ledger over that store, encoding records', () => pingStore(client, 'json'));
  const emptyScript = await emptyScriptTrip(client, `${run}empty:`);
  const overEmpty = ledgerCases(
    'ledger over that store, each write an empty script with the driver’s KEYS and ARGV',
    () => pingStore(client, 'json', emptyScript),
  );
  const ping = () => client.sendCommand(['PING']);
  const ladder = (kind: Kind, roundTrips: TimedCase): Record<Row, TimedCase> => {
    const pick = (cases: CallAndReplay): TimedCase => cases[kind];
    return {
      roundTrips,
      ledgerOverPing: pick(overPing),
      withCodec: pick(withCodec),
      emptyScripts: pick(overEmpty),
      scripts: pick(comparison.hyphaeRaw),
      hyphae: pick(comparison.hyphae),
      powertoolsRaw: pick(comparison.powertoolsRaw),
      powertools: pick(comparison.powertools),
    };
  };
  const twoPings = async (): Promise<unknown> => {
    await ping();
    return ping();
  };
  return {
    call: ladder('call', { name: 'two PINGs', start: () => twoPings }),
    replay: ladder('replay', { name: 'one PING', start: () => ping }),
  };
}

/** What each layer adds, from the rows of one ladder: [layer, wall µs, client CPU µs]. */
function parts(t: Record<Row, Stats>): [string, number, number][] {
  const less = (a: Stats, b: Stats): [number, number] => [a.meanUs - b.meanUs, a.cpuUs - b.cpuUs];
  const [scriptsWall, scriptsCpu] = less(t.scripts, t.roundTrips);
  const [restWall, restCpu] = less(t.hyphae, t.withCodec);
  return [
    ['hyphae: the ledger’s own work (ledger over PINGs − PINGs)', ...less(t.ledgerOverPing, t.roundTrips)],
    [
      'hyphae: encoding and decoding records (… encoding records − ledger over PINGs)',
      ...less(t.withCodec, t.ledgerOverPing),
    ],
    ['hyphae: the scripts on the server and their arguments (scripts − PINGs)', scriptsWall, scriptsCpu],
    [
      'hyphae: the rest of the driver (hyphae − encoding records − scripts’ share)',
      restWall - scriptsWall,
      restCpu - scriptsCpu,
    ],
    [
      'hyphae: EVALSHA and its arguments, no script body (… empty scripts − encoding records)',
      ...less(t.emptyScripts, t.withCodec),
    ],
    ['hyphae: what the scripts do on the server (hyphae − … empty scripts)', ...less(t.hyphae, t.emptyScripts)],
    ['hyphae: in all, above the bare round trips', ...less(t.hyphae, t.roundTrips)],
    ['powertools: its commands on the server (its commands − PINGs)', ...less(t.powertoolsRaw, t.roundTrips)],
    ['powertools: its own work (powertools − its commands)', ...less(t.powertools, t.powertoolsRaw)],
    ['powertools: in all, above the bare round trips', ...less(t.powertools, t.roundTrips)],
  ];
}

async function main(): Promise<void> {
  const command = commandLine();
  const loadAtStart = load();
  await onBenchRedis('first-call parts not measured', async (client, run) => {
    console.log(`${command}: ${quick ? 'quick' : 'full'} run, ${plan.durationMs} ms per case`);
    const built = await ladders(client, run);
    const measured = {} as Record<Kind, Record<Row, Stats>>;
    for (const [kind] of KINDS) {
      const stats = await measureCases(
        ROWS.map((row) => built[kind][row]),
        plan,
      );
      measured[kind] = Object.fromEntries(ROWS.map((row, index) => [row, stats[index] as Stats])) as Record<Row, Stats>;
      for (const row of ROWS) {
        const { meanUs, cpuUs } = measured[kind][row];
        console.log(
          `  ${kind.padEnd(6)} ${built[kind][row].name.padEnd(84)} ${us(meanUs).padStart(7)} µs  cpu ${us(cpuUs)} µs`,
        );
      }
    }
    await writeReport(command, loadAtStart, built, measured);
    console.log('wrote bench/results/first-call-parts.json and bench/results/first-call-parts.md');
  });
}

async function writeReport(
  command: string,
  loadAtStart: number,
  built: Record<Kind, Record<Row, TimedCase>>,
  measured: Record<Kind, Record<Row, Stats>>,
): Promise<void> {
  const rows = KINDS.flatMap(([kind, title]) =>
    ROWS.map((row) => {
      const stats = measured[kind][row];
      return [title, built[kind][row].name, us(stats.meanUs), us(stats.p50Us), us(stats.cpuUs)];
    }),
  );
  const partRows = KINDS.flatMap(([kind, title]) =>
    parts(measured[kind]).map(([part, wall, cpu]) => [title, part, us(wall), us(cpu)]),
  );
  const figures = KINDS.flatMap(([kind]) => [
    figure(
      `first-call parts ${kind}: hyphae on Redis ÷ powertools on Redis (mean µs)`,
      'µs',
      measured[kind].hyphae.meanUs,
      measured[kind].powertools.meanUs,
    ),
    figure(
      `first-call parts ${kind}: the least one Lua script per write can cost (ledger over empty scripts) ÷ powertools on Redis (p50 µs)`,
      'µs',
      measured[kind].emptyScripts.p50Us,
      measured[kind].powertools.p50Us,
    ),
    ...parts(measured[kind]).map(([part, wall]) =>
      figure(`first-call parts ${kind}: ${part} ÷ the bare round trips`, 'µs', wall, measured[kind].roundTrips.meanUs),
    ),
  ]);
  const markdown = [
    '# Where a call’s time goes on Redis, layer by layer',
    '',
    ...headerLines(command, loadAtStart, new Date()),
    `- Plan: ${quick ? 'quick' : 'full'} mode, ${plan.warmupMs} ms warm-up, then ${roundsText(plan)} (first calls, then replays)`,
    '',
    `One node-redis client on the shared server (127.0.0.1:6379), calls one at a time. The rows climb from
the bare round trips a call needs (PING), through the ledger over a store that costs one PING per write
and keeps its records in memory (no driver, no scripts), the same store encoding every record it writes
and decoding the one a create meets as the Redis driver does, the same store sending each write as an
EVALSHA of a script that does nothing (with the KEYS and ARGV the driver sends), the driver's scripts
sent alone, to the ledger on the Redis driver; then Powertools' commands alone and Powertools itself.
The empty-script row is the least a design that runs one Lua script per write can cost, whatever its
scripts do. The ledgered calls, the Powertools calls and both raw rows are the cases of the Powertools
comparison above. CPU is this
process's user + system time per call; the server's work shows only in the wall time.`,
    '',
    ...markdownTable(
      [
        { title: 'case' },
        { title: 'row' },
        { title: 'mean µs', align: 'right' },
        { title: 'p50 µs', align: 'right' },
        { title: 'client CPU µs', align: 'right' },
      ],
      rows,
    ),
    '',
    'What each layer adds (differences of the means above; a difference of two noisy figures, so small ones are noise):',
    '',
    ...markdownTable(
      [
        { title: 'case' },
        { title: 'layer' },
        { title: 'wall µs', align: 'right' },
        { title: 'client CPU µs', align: 'right' },
      ],
      partRows,
    ),
    '',
  ].join('\n');
  await writeArea('first-call-parts', figures, markdown);
}

await main();
