/**
 * Ledger throughput against the number of Redis Cluster masters, measured in calls per second:
 * every `redis-server` is capped to the same share of a core (a cgroup v1 `cpu` group each), so
 * the servers, not the machine's two cores shared with the callers, are what runs out. Ledgered
 * no-op calls, 32, 64 and 128 in flight, on one capped server, a cluster of one capped master and
 * a cluster of three capped masters, in interleaved rounds, from caller processes of their own.
 *
 *   node --import tsx bench/ledger/cluster-scaling.ts            # full run (~3 min)
 *   node --import tsx bench/ledger/cluster-scaling.ts --quick    # short run (~1 min)
 *
 * `--period-us=<µs>` and `--quota-us=<µs>` change the cap (default 1000 µs in every 10 000 µs:
 * 10 % of a core), `--callers=<n>` the number of caller processes (default 2), `--in-flight=<n,…>`
 * the calls in flight. Needs root and the cgroup v1 `cpu` controller at /sys/fs/cgroup/cpu.
 * Writes bench/results/cluster-scaling.{json,md}; bench/aggregate.ts gathers them into
 * bench/RESULTS.md.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createClient } from 'redis';
import { startOwnRedis } from '../../test/helpers/own-redis.js';
import { startOwnCluster } from '../../test/helpers/redis-cluster.js';
import { commandLine, load, writeArea } from '../lib/area-report.js';
import {
  type CpuCap,
  type CpuCapSettings,
  cpuCapUnavailable,
  createCpuCap,
  type ThrottleStats,
} from '../lib/cpu-cap.js';
import { Histogram } from '../lib/histogram.js';
import {
  describe,
  figuresOf,
  markdownOf,
  ONE_MASTER,
  ONE_SERVER,
  type Row,
  type ServerUse,
  THREE_MASTERS,
} from './cluster-scaling-report.js';
import { type Callers, runCaller, startCallers, type TopologySpec } from './scaling-callers.js';

const quick = process.argv.includes('--quick');
/** The numbers given as `--<name>=<n>[,<n>…]`, or `fallback`. */
const flag = (name: string, fallback: readonly number[]): readonly number[] => {
  const given = process.argv.find((arg) => arg.startsWith(`--${name}=`));
  return given === undefined
    ? fallback
    : given
        .slice(name.length + 3)
        .split(',')
        .map(Number);
};
const [periodUs = 10_000] = flag('period-us', [10_000]);
const [quotaUs = 1_000] = flag('quota-us', [1_000]);
const CAP: CpuCapSettings = { periodUs, quotaUs };
const [CALLERS = 2] = flag('callers', [2]);
const IN_FLIGHT = flag('in-flight', [32, 64, 128]);
const PLAN = quick
  ? { warmupMs: 500, durationMs: 3000, rounds: 3 }
  : { warmupMs: 2000, durationMs: 15_000, rounds: 10 };
/** Ports of the three-master cluster; the tests use 7101–7186, bench/ledger/cluster.ts 7151–7153. */
const CLUSTER_PORT = 7191;

/** One `redis-server` of a topology, in a cgroup of its own. */
interface CappedServer {
  readonly url: string;
  readonly cap: CpuCap;
}

/** A store under test: its capped servers and how the callers reach it. */
interface Topology {
  readonly spec: TopologySpec;
  readonly servers: readonly CappedServer[];
}

/** Clean-ups run last first, also when a step fails. */
const cleanups: (() => Promise<void>)[] = [];

/** The replies to `commands` from the server at `url`, as text ('' for a command it refused). */
async function ask(url: string, ...commands: string[][]): Promise<string[]> {
  const client = createClient({ url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const replies: string[] = [];
    for (const command of commands) replies.push(await client.sendCommand(command).then(String, () => ''));
    return replies;
  } finally {
    await client.close();
  }
}

const field = (text: string, name: string): number =>
  Number(new RegExp(`^${name}:([0-9.]+)`, 'm').exec(text)?.[1] ?? Number.NaN);

/** Put the server at `url` into a capped cgroup of its own, named after its port. */
async function capServer(url: string): Promise<CappedServer> {
  const [server = ''] = await ask(url, ['INFO', 'server']);
  const pid = field(server, 'process_id');
  const cap = await createCpuCap(`hyphae-bench-redis-${new URL(url).port}`, CAP);
  cleanups.push(() => cap.remove());
  await cap.add(pid);
  return { url, cap };
}

async function oneServer(): Promise<Topology> {
  const server = await startOwnRedis();
  cleanups.push(() => server.stop());
  const spec = { name: ONE_SERVER, urls: [server.url], cluster: false, prefix: 'hyphae-bench:single:' };
  return { spec, servers: [await capServer(server.url)] };
}

/** A cluster of one master holding every slot: the cluster layout's cost without a second master. */
async function oneMaster(): Promise<Topology> {
  const dir = await mkdtemp(join(tmpdir(), 'hyphae-cluster-one-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const server = await startOwnRedis(['--dir', dir, '--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf']);
  cleanups.push(() => server.stop());
  await ask(server.url, ['CLUSTER', 'ADDSLOTSRANGE', '0', '16383']);
  for (let attempt = 0; ; attempt += 1) {
    const [state = ''] = await ask(server.url, ['CLUSTER', 'INFO']);
    if (state.includes('cluster_state:ok')) break;
    if (attempt > 200) throw new Error('The one-master cluster did not reach `cluster_state:ok`');
    await sleep(25);
  }
  const spec = { name: ONE_MASTER, urls: [server.url], cluster: true, prefix: 'hyphae-bench:one-master:' };
  return { spec, servers: [await capServer(server.url)] };
}

async function threeMasters(): Promise<Topology> {
  const own = await startOwnCluster(CLUSTER_PORT, 0);
  cleanups.push(() => own.stop());
  const urls = own.nodes.map((node) => node.url);
  const servers: CappedServer[] = [];
  for (const url of urls) servers.push(await capServer(url));
  return { spec: { name: THREE_MASTERS, urls, cluster: true, prefix: 'hyphae-bench:three-masters:' }, servers };
}

/** The machine's CPU time so far (`/proc/stat`, in clock ticks over every core): busy, and in all. */
function machineTicks(): { busy: number; all: number } {
  const [, ...fields] = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/);
  // user nice system idle iowait irq softirq steal: idle and iowait are the time no work ran.
  const ticks = fields.slice(0, 8).map(Number);
  const all = ticks.reduce((sum, tick) => sum + tick, 0);
  return { busy: all - (ticks[3] ?? 0) - (ticks[4] ?? 0), all };
}

/** A server's counters at one moment. */
interface Counters {
  /** CPU used (user + system, `INFO cpu`), µs. */
  readonly cpuUs: number;
  /** Commands run and reads of client input (`INFO stats`): commands per read is how much the server batches. */
  readonly commands: number;
  readonly reads: number;
  /** `PUBLISH` messages forwarded to it by the other nodes over the cluster bus (`CLUSTER INFO`). */
  readonly busMessages: number;
  readonly throttle: ThrottleStats;
}

async function counters(server: CappedServer): Promise<Counters> {
  const [cpu = '', stats = '', bus = ''] = await ask(
    server.url,
    ['INFO', 'cpu'],
    ['INFO', 'stats'],
    ['CLUSTER', 'INFO'],
  );
  return {
    cpuUs: (field(cpu, 'used_cpu_user') + field(cpu, 'used_cpu_sys')) * 1e6,
    commands: field(stats, 'total_commands_processed'),
    reads: field(stats, 'total_reads_processed'),
    // Absent until the first forwarded `PUBLISH` arrives, and outside a cluster.
    busMessages: field(bus, 'cluster_stats_messages_publish_received') || 0,
    throttle: await server.cap.throttling(),
  };
}

/** What one server did for a topology's calls, from its counters before and after. */
function serverUse(was: Counters, now: Counters, calls: number): ServerUse {
  const periods = now.throttle.periods - was.throttle.periods;
  return {
    usPerCall: (now.cpuUs - was.cpuUs) / calls,
    commandsPerCall: (now.commands - was.commands) / calls,
    commandsPerRead: (now.commands - was.commands) / (now.reads - was.reads),
    busPerCall: (now.busMessages - was.busMessages) / calls,
    throttled: (now.throttle.throttledPeriods - was.throttle.throttledPeriods) / periods,
  };
}

/**
 * Every topology with `inFlight` calls in flight, in interleaved rounds (drift in the machine lands
 * on every topology alike), with each server's CPU and throttling read before and after. A topology
 * that is not running calls is idle, so its servers' CPU is its own calls'.
 */
async function measure(topologies: readonly Topology[], callers: Callers, inFlight: number): Promise<Row[]> {
  for (let t = 0; t < topologies.length; t += 1) await callers.run(t, inFlight, PLAN.warmupMs);
  const totals = topologies.map(() => ({
    calls: 0,
    elapsedMs: 0,
    cpuUs: [] as number[],
    histogram: new Histogram(),
    machine: { busy: 0, all: 0 },
  }));
  const snapshot = (topology: Topology): Promise<Counters[]> => Promise.all(topology.servers.map(counters));
  const before = await Promise.all(topologies.map(snapshot));
  for (let round = 0; round < PLAN.rounds; round += 1) {
    for (const [t, total] of totals.entries()) {
      const ticks = machineTicks();
      const done = await callers.run(t, inFlight, PLAN.durationMs / PLAN.rounds);
      const spent = machineTicks();
      total.machine.busy += spent.busy - ticks.busy;
      total.machine.all += spent.all - ticks.all;
      total.calls += done.calls;
      total.elapsedMs += done.elapsedMs;
      done.cpuUs.forEach((cpu, c) => {
        total.cpuUs[c] = (total.cpuUs[c] ?? 0) + cpu;
      });
      for (const latency of done.latenciesUs) total.histogram.record(latency);
    }
  }
  const after = await Promise.all(topologies.map(snapshot));
  return topologies.map((topology, t) => {
    const total = totals[t] as (typeof totals)[number];
    const [was, now] = [before[t], after[t]] as [(typeof before)[number], (typeof before)[number]];
    const stats = total.histogram.stats();
    const row: Row = {
      topology: topology.spec.name,
      inFlight,
      calls: total.calls,
      callsPerSecond: total.calls / (total.elapsedMs / 1000),
      p50Us: stats.p50Us,
      p99Us: stats.p99Us,
      servers: now.map((counted, s) => serverUse(was[s] as Counters, counted, total.calls)),
      clientUsPerCall: total.cpuUs.reduce((sum, cpu) => sum + cpu, 0) / total.calls,
      callerShares: total.cpuUs.map((cpu) => cpu / (total.elapsedMs * 1000)),
      machineBusy: total.machine.busy / total.machine.all,
    };
    console.log(`  ${describe(row)}`);
    return row;
  });
}

async function main(): Promise<void> {
  // Stopped from the terminal: the servers are daemons and the cgroups outlive the process, so clean up first.
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    process.once(signal, () => {
      console.error(`${signal}: stopping the servers and removing the cgroups`);
      const exit = (): never => process.exit(code);
      cleanUp().then(exit, exit);
    });
  }
  const unavailable = await cpuCapUnavailable();
  if (unavailable !== null) throw new Error(`Cannot cap the servers: ${unavailable}`);
  const command = commandLine();
  const loadAtStart = load();
  console.log(
    `${command}: ${quick ? 'quick' : 'full'} run, cap ${CAP.quotaUs} µs per ${CAP.periodUs} µs, ${CALLERS} callers`,
  );
  try {
    const topologies = [await oneServer(), await oneMaster(), await threeMasters()];
    const script = fileURLToPath(import.meta.url);
    const callers = await startCallers(
      script,
      ['--caller'],
      CALLERS,
      topologies.map((topology) => topology.spec),
    );
    cleanups.push(() => callers.close());
    const rows: Row[] = [];
    for (const inFlight of IN_FLIGHT) rows.push(...(await measure(topologies, callers, inFlight)));
    const report = { command, quick, plan: PLAN, cap: CAP, callers: CALLERS, loadAtStart, rows };
    await writeArea('cluster-scaling', figuresOf(report), markdownOf(report));
    console.log('wrote bench/results/cluster-scaling.json and bench/results/cluster-scaling.md');
  } finally {
    await cleanUp();
  }
}

let cleaning: Promise<void> | null = null;

/** Stop what this run started (callers, cgroups, servers), last first; every caller waits for the same clean-up. */
function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((error: unknown) => console.error(error));
  })();
  return cleaning;
}

if (process.argv.includes('--caller')) runCaller();
else await main();
