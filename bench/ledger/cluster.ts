/**
 * The Redis driver on a Redis Cluster beside one Redis server: a ledgered no-op call against the
 * driver's raw scripts, one in flight and 32 in flight, on a single `redis-server` and on a
 * cluster of three masters (no replicas), both started by this script on ports of their own and
 * stopped at the end.
 *
 *   node --import tsx bench/ledger/cluster.ts            # full run (~1 min)
 *   node --import tsx bench/ledger/cluster.ts --quick    # short run
 *
 * Writes bench/results/cluster.{json,md}; bench/aggregate.ts gathers them into bench/RESULTS.md.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createClient, createCluster } from 'redis';
import { createLedger, type LedgerStorage } from '../../src/index.js';
import { BUCKET_TAGS } from '../../src/storage/redis/cluster.js';
import {
  CREATE_RECORD_SCRIPT,
  SHARDED_UPDATE_RECORD_SCRIPT,
  UPDATE_RECORD_SCRIPT,
} from '../../src/storage/redis/scripts.js';
import { createRedisStorage } from '../../src/storage/redis.js';
import { startOwnRedis } from '../../test/helpers/own-redis.js';
import { startOwnCluster } from '../../test/helpers/redis-cluster.js';
import { commandLine, type Figure, figure, headerLines, load, us, writeArea } from '../lib/area-report.js';
import { type FlightPlan, type FlightStats, measureInFlight } from '../lib/in-flight.js';
import { type Column, markdownTable } from '../lib/markdown-table.js';
import { roundsText, type TimedCase } from '../lib/measure.js';
import { randomKey } from '../lib/random-key.js';
import { parseDoc, type WrittenDoc } from '../lib/written-docs.js';
import { countWrites } from './write-counts.js';

const quick = process.argv.includes('--quick');
const plan = (inFlight: number): FlightPlan =>
  quick
    ? { warmupMs: 100, durationMs: 600, rounds: 2, inFlight }
    : { warmupMs: 1000, durationMs: 6000, rounds: 12, inFlight };
/** Ports of the bench's own servers; the tests use 7101–7116. */
const CLUSTER_PORT = 7151;
/** Runs the calls are spread over: each call belongs to one, so the cluster spreads them over its buckets. */
const RUNS = 256;

/** A raw command sender routed by key (the cluster client's `sendCommand`, or one server's). */
type Send = (key: string, args: string[]) => Promise<unknown>;

/** The ledgered no-op call, each call in a run of its own among {@link RUNS}. */
function ledgeredCall(label: string, storage: LedgerStorage): TimedCase {
  const run = randomUUID().slice(0, 8);
  let seq = 0;
  const tool = createLedger({ storage, agentId: 'bench-agent', policyVersion: 'bench.1' }).tool(
    { name: 'bench_noop', sideEffectClass: 'idempotent_mutate' },
    async () => undefined,
  );
  return {
    name: `${label}: ledgered no-op call`,
    start: () => () => {
      seq += 1;
      return tool({ orderId: 'ord_42' }, { toolCallId: `call_${run}_${seq}`, scope: { runId: `run_${seq % RUNS}` } });
    },
  };
}

/**
 * The raw round trips of one call: the driver's create script, then its update script, with the
 * ledger's documents, on keys of a random bucket (`tags`: one empty tag for one server).
 */
async function rawCall(label: string, send: Send, prefix: string, tags: readonly string[], docs: readonly string[]) {
  const sha = (script: string): string => createHash('sha1').update(script).digest('hex');
  // The driver's update script on a cluster sends its notice with SPUBLISH; on one server, PUBLISH.
  const update = tags.length > 1 ? SHARDED_UPDATE_RECORD_SCRIPT : UPDATE_RECORD_SCRIPT;
  const [createSha, updateSha] = [sha(CREATE_RECORD_SCRIPT), sha(update)];
  const [first, ...rest] = docs.map(parseDoc) as [WrittenDoc, ...WrittenDoc[]];
  const at = (tag: string): string => (tag === '' ? prefix : `${prefix}{${tag}}`);
  for (const tag of tags) {
    await send(`${at(tag)}ledger`, ['HSET', `${at(tag)}ledger`, 'id', 'bench-raw', 'at', '0']);
    for (const script of [CREATE_RECORD_SCRIPT, update]) {
      await send(`${at(tag)}ledger`, ['SCRIPT', 'LOAD', script]);
    }
  }
  const fields = (write: WrittenDoc): string[] => [
    write.doc,
    String(write.version),
    String(Date.now()),
    write.outcome,
    write.tool,
    write.kind,
  ];
  const timed: TimedCase = {
    name: `${label}: raw create + update EVALSHA`,
    start: () => async () => {
      const base = at(tags[Math.floor(Math.random() * tags.length)] ?? '');
      const key = randomKey();
      const ticketKey = randomKey();
      const record = `${base}rec:${key}`;
      const keys = [record, `${base}updated`, `${base}ledger`];
      await send(record, [
        ...['EVALSHA', createSha, '4', ...keys, `${base}ticket:${ticketKey}`, `${base}rec:`, key],
        ...fields(first),
        ...[`=${ticketKey}`, 'bench-raw'],
      ]);
      let version = first.version;
      for (const write of rest) {
        await send(record, [
          ...['EVALSHA', updateSha, '3', ...keys, key, String(version)],
          ...fields(write),
          ...[`=${ticketKey}`, 'bench-raw'],
        ]);
        version = write.version;
      }
    },
  };
  return timed;
}

interface Row {
  readonly store: string;
  readonly inFlight: number;
  readonly ledgered: FlightStats;
  readonly raw: FlightStats;
}

/** Where the servers' CPU went during a run of ledgered calls alone. */
interface ServerLoad {
  readonly store: string;
  readonly calls: number;
  /** Server CPU (user + system, `INFO cpu`) per ledgered call, on each master. */
  readonly usPerCall: readonly number[];
}

/** The user + system CPU each server has used, in µs. */
async function serverCpuUs(urls: readonly string[]): Promise<number[]> {
  const used: number[] = [];
  for (const url of urls) {
    const client = createClient({ url });
    client.on('error', () => undefined);
    await client.connect();
    try {
      const info = String(await client.sendCommand(['INFO', 'cpu']));
      const seconds = (name: string): number => Number(new RegExp(`${name}:([0-9.]+)`).exec(info)?.[1] ?? Number.NaN);
      used.push((seconds('used_cpu_user') + seconds('used_cpu_sys')) * 1e6);
    } finally {
      await client.close();
    }
  }
  return used;
}

/**
 * Ledgered calls alone, 32 in flight, with each master's CPU read before and after: how the
 * servers' share of the work spreads over the masters. A server is single-threaded, so the busiest
 * master's CPU per call bounds what the servers can carry (`1 s ÷ that`) once the clients run on
 * machines of their own.
 */
async function serverLoad(store: string, storage: LedgerStorage, urls: readonly string[]): Promise<ServerLoad> {
  const calls = quick ? 2000 : 20_000;
  const call = await ledgeredCall(store, storage).start();
  for (let i = 0; i < 200; i += 1) await call();
  const before = await serverCpuUs(urls);
  let started = 0;
  const worker = async (): Promise<void> => {
    while (started < calls) {
      started += 1;
      await call();
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  const after = await serverCpuUs(urls);
  return { store, calls, usPerCall: after.map((used, i) => (used - (before[i] ?? 0)) / calls) };
}

const busiest = (load: ServerLoad): number => Math.max(...load.usPerCall);
const total = (load: ServerLoad): number => load.usPerCall.reduce((sum, us) => sum + us, 0);

async function measure(store: string, storage: LedgerStorage, send: Send, tags: readonly string[]): Promise<Row[]> {
  const writes = await countWrites(store, storage);
  const prefix = `hyphae-bench:${randomKey().slice(0, 12)}:raw:`;
  const raw = await rawCall(store, send, prefix, tags, writes.call.docs);
  const rows: Row[] = [];
  for (const inFlight of [1, 32]) {
    const [ledgered, baseline] = (await measureInFlight([ledgeredCall(store, storage), raw], plan(inFlight))) as [
      FlightStats,
      FlightStats,
    ];
    rows.push({ store, inFlight, ledgered, raw: baseline });
    console.log(
      `  ${store}, ${inFlight} in flight: ledgered ${ledgered.callsPerSecond.toFixed(0)} calls/s (p50 ${us(ledgered.p50Us)} µs), raw ${baseline.callsPerSecond.toFixed(0)} calls/s (p50 ${us(baseline.p50Us)} µs)`,
    );
  }
  return rows;
}

async function singleNode(): Promise<{ rows: Row[]; load: ServerLoad }> {
  const server = await startOwnRedis();
  const client = createClient({ url: server.url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const storage = createRedisStorage({ client }, { prefix: 'hyphae-bench:single:' });
    const rows = await measure('one redis-server', storage, (_key, args) => client.sendCommand(args), ['']);
    return { rows, load: await serverLoad('one redis-server', storage, [server.url]) };
  } finally {
    await client.close();
    await server.stop();
  }
}

async function threeMasters(): Promise<{ rows: Row[]; load: ServerLoad }> {
  const own = await startOwnCluster(CLUSTER_PORT, 0);
  const client = createCluster({ rootNodes: own.nodes.map((node) => ({ url: node.url })) });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const storage = createRedisStorage({ client }, { prefix: 'hyphae-bench:cluster:' });
    const send: Send = async (key, args) => {
      if (args[0] !== 'SCRIPT') return client.sendCommand(key, false, args);
      for (const master of client.masters) await (await client.nodeClient(master)).sendCommand(args);
      return null;
    };
    const rows = await measure('cluster, 3 masters', storage, send, BUCKET_TAGS);
    const urls = own.nodes.map((node) => node.url);
    return { rows, load: await serverLoad('cluster, 3 masters', storage, urls) };
  } finally {
    await client.close();
    await own.stop();
  }
}

function figuresOf(rows: readonly Row[], loads: readonly ServerLoad[]): Figure[] {
  const figures = rows.map((row) =>
    figure(
      `${row.store}: ledgered no-op calls, ${row.inFlight} in flight, against the raw scripts`,
      'calls/s',
      row.ledgered.callsPerSecond,
      row.raw.callsPerSecond,
      0,
    ),
  );
  const single = rows.find((row) => row.store === 'one redis-server' && row.inFlight === 32);
  const spread = rows.find((row) => row.store === 'cluster, 3 masters' && row.inFlight === 32);
  if (single !== undefined && spread !== undefined) {
    figures.push(
      figure(
        'cluster of 3 masters against one redis-server: ledgered calls, 32 in flight',
        'calls/s',
        spread.ledgered.callsPerSecond,
        single.ledgered.callsPerSecond,
        0,
      ),
      figure(
        'cluster of 3 masters against one redis-server: raw scripts, 32 in flight',
        'calls/s',
        spread.raw.callsPerSecond,
        single.raw.callsPerSecond,
        0,
      ),
    );
  }
  const [one, three] = loads;
  if (one !== undefined && three !== undefined) {
    figures.push(
      figure(
        'cluster of 3 masters against one redis-server: server ceiling (1 s ÷ busiest server CPU per ledgered call)',
        'calls/s',
        1e6 / busiest(three),
        1e6 / busiest(one),
        0,
      ),
    );
  }
  return figures;
}

function loadTable(loads: readonly ServerLoad[]): string[] {
  const single = loads[0];
  return markdownTable(
    [
      { title: 'store' },
      ...['calls', 'server CPU µs/call (all)', 'per master µs/call', 'busiest master’s share'].map(right),
      ...['server ceiling calls/s', 'ceiling ÷ one server'].map(right),
    ],
    loads.map((load) => [
      load.store,
      String(load.calls),
      us(total(load)),
      load.usPerCall.map(us).join(' / '),
      `${((busiest(load) / total(load)) * 100).toFixed(0)} %`,
      (1e6 / busiest(load)).toFixed(0),
      single === undefined ? '—' : `${(busiest(single) / busiest(load)).toFixed(2)}×`,
    ]),
  );
}

const right = (title: string): Column => ({ title, align: 'right' });

function markdownOf(command: string, loadAtStart: number, rows: readonly Row[], loads: readonly ServerLoad[]): string {
  const table = markdownTable(
    [
      { title: 'store' },
      right('in flight'),
      ...['ledgered calls/s', 'raw calls/s', 'ledgered ÷ raw', 'ledgered p50 µs', 'raw p50 µs'].map(right),
      ...['ledgered CPU µs/call', 'raw CPU µs/call'].map(right),
    ],
    rows.map((row) => [
      row.store,
      String(row.inFlight),
      row.ledgered.callsPerSecond.toFixed(0),
      row.raw.callsPerSecond.toFixed(0),
      `${(row.ledgered.callsPerSecond / row.raw.callsPerSecond).toFixed(2)}×`,
      us(row.ledgered.p50Us),
      us(row.raw.p50Us),
      us(row.ledgered.cpuUsPerCall),
      us(row.raw.cpuUsPerCall),
    ]),
  );
  return [
    '# Redis Cluster beside one Redis server',
    '',
    ...headerLines(command, loadAtStart, new Date()),
    `- Plan: ${quick ? 'quick' : 'full'} mode, per row ${plan(1).warmupMs} ms warm-up, then ${roundsText(plan(1))}`,
    '',
    'A ledgered no-op call (`idempotent_mutate`, a fresh tool call id, each call in one of 256 runs so the',
    'cluster spreads them over its buckets) against the raw round trips the driver makes for it (its create',
    'script, then its update script, on the keys of a random bucket), one call in flight and 32 in flight,',
    'from one Node process over one node-redis client (`createClient`, or `createCluster`). Both stores are',
    'servers of the bench’s own without persistence: one `redis-server`, and a cluster of three masters',
    'without replicas on the same machine. On the cluster a ledgered claim also writes the routes of its key',
    'and ticket (one round trip, two commands in parallel), so a call is three round trips there against',
    'two on one server.',
    '',
    ...table,
    '',
    'What this machine can show: it has 2 cores, shared by the Node process, every Redis server and other',
    'work (see the load). The three masters therefore share the cores the single server had, and the one',
    'client process is the first to saturate; the cluster row measures the driver’s cost on a cluster',
    '(routes, per-node connections), not the capacity three machines would add. The CPU columns are the',
    'client process’s: a ledgered call on the cluster sends four commands against two (the routes, then the',
    'two scripts) over the cluster client, which costs the client more per call. Calls per second against',
    'the masters, with every server capped so the servers run out first, are in “Redis Cluster throughput',
    'against its masters, every server capped”.',
    '',
    '### Where the servers’ work goes',
    '',
    'The servers’ side, which the cores cannot show as calls per second: ledgered calls alone, 32 in flight,',
    'with each server’s CPU (user + system, `INFO cpu`) read before and after. A Redis server runs commands on',
    'one thread, so the busiest master’s CPU per call bounds the calls per second the servers can carry',
    '(1 s ÷ it) once the clients run on machines of their own; the last column is that ceiling against one',
    'server’s. It is a bound from measured server CPU, not a measured rate.',
    '',
    ...loadTable(loads),
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const command = commandLine();
  const loadAtStart = load();
  console.log(`${command}: ${quick ? 'quick' : 'full'} run`);
  const single = await singleNode();
  const spread = await threeMasters();
  const rows = [...single.rows, ...spread.rows];
  const loads = [single.load, spread.load];
  for (const each of loads) {
    console.log(`  ${each.store}: server CPU per call ${each.usPerCall.map(us).join(' / ')} µs`);
  }
  await writeArea('cluster', figuresOf(rows, loads), markdownOf(command, loadAtStart, rows, loads));
  console.log('wrote bench/results/cluster.json and bench/results/cluster.md');
}

await main();
