/**
 * The outputs of the cluster scaling bench: `bench/results/cluster-scaling.json` (figures) and
 * `bench/results/cluster-scaling.md`.
 */
import { type Figure, figure, headerLines, us } from '../lib/area-report.js';
import type { CpuCapSettings } from '../lib/cpu-cap.js';
import { type Column, markdownTable } from '../lib/markdown-table.js';

/** What one server did for a topology's calls. */
export interface ServerUse {
  /** CPU (user + system, `INFO cpu`) per call. */
  readonly usPerCall: number;
  /** Commands run per call, the scripts' own commands included (`total_commands_processed`). */
  readonly commandsPerCall: number;
  /** Commands per read of client input: how much the server batches. */
  readonly commandsPerRead: number;
  /** Cluster bus messages received per call (a plain `PUBLISH` would be forwarded to every other node). */
  readonly busPerCall: number;
  /** Share of the CFS periods the server ran in where it used up its quota (`cpu.stat`). */
  readonly throttled: number;
}

/** One topology with a number of calls in flight: the calls, what they cost the servers and the callers. */
export interface Row {
  readonly topology: string;
  readonly inFlight: number;
  readonly calls: number;
  readonly callsPerSecond: number;
  readonly p50Us: number;
  readonly p99Us: number;
  readonly servers: readonly ServerUse[];
  /** The callers' CPU (user + system) per call, all caller processes together. */
  readonly clientUsPerCall: number;
  /** Each caller process's CPU as a share of one core while the topology's calls ran. */
  readonly callerShares: readonly number[];
  /** The share of the machine's cores (all of them) busy while the topology's calls ran, this bench or not. */
  readonly machineBusy: number;
}

/** Everything one run produced. */
export interface ScalingReport {
  readonly command: string;
  readonly quick: boolean;
  readonly plan: { readonly warmupMs: number; readonly durationMs: number; readonly rounds: number };
  readonly cap: CpuCapSettings;
  readonly callers: number;
  readonly loadAtStart: number;
  readonly rows: readonly Row[];
}

/** The names the bench gives its topologies. */
export const ONE_SERVER = 'one redis-server';
export const ONE_MASTER = 'cluster, 1 master';
export const THREE_MASTERS = 'cluster, 3 masters';

/** A server's share of one core while its topology's calls ran. */
const coreShare = (row: Row, server: ServerUse): number => (server.usPerCall * row.callsPerSecond) / 1e6;
const serverTotal = (row: Row): number => row.servers.reduce((sum, server) => sum + server.usPerCall, 0);
const percent = (share: number, digits = 0): string => `${(share * 100).toFixed(digits)} %`;
const each = (row: Row, format: (server: ServerUse) => string): string => row.servers.map(format).join(' / ');
const ms = (value: number): string => (value / 1000).toFixed(1);
const times = (value: number): string => `${value.toFixed(2)}×`;
const capText = (cap: CpuCapSettings): string => `${percent(cap.quotaUs / cap.periodUs)} of one core`;

/** The row of `topology` with `inFlight` calls in flight. */
const find = (rows: readonly Row[], topology: string, inFlight: number): Row | undefined =>
  rows.find((row) => row.topology === topology && row.inFlight === inFlight);

/** One line for the console. */
export function describe(row: Row): string {
  return [
    `${row.topology}, ${row.inFlight} in flight: ${row.callsPerSecond.toFixed(0)} calls/s`,
    `p50 ${ms(row.p50Us)} ms, p99 ${ms(row.p99Us)} ms`,
    `server CPU ${each(row, (server) => us(server.usPerCall))} µs/call (${each(row, (server) => percent(coreShare(row, server), 1))} of a core, throttled in ${each(row, (server) => percent(server.throttled))} of periods)`,
    `commands/call ${each(row, (server) => server.commandsPerCall.toFixed(2))}, per read ${each(row, (server) => server.commandsPerRead.toFixed(1))}, bus messages/call ${each(row, (server) => server.busPerCall.toFixed(2))}`,
    `callers ${us(row.clientUsPerCall)} µs/call (${row.callerShares.map((share) => percent(share)).join(' / ')} of a core), machine ${percent(row.machineBusy)} busy`,
  ].join(', ');
}

/** Per number in flight: three masters against one server and against one master, and their server CPU per call. */
export function figuresOf(report: ScalingReport): Figure[] {
  const cap = capText(report.cap);
  return [...new Set(report.rows.map((row) => row.inFlight))].flatMap((inFlight) => {
    const [single, one, three] = [ONE_SERVER, ONE_MASTER, THREE_MASTERS].map((name) =>
      find(report.rows, name, inFlight),
    );
    if (single === undefined || one === undefined || three === undefined) return [];
    const what = `${inFlight} in flight, every server capped at ${cap}`;
    return [
      figure(
        `cluster of 3 masters against one redis-server: ledgered calls, ${what}`,
        'calls/s',
        three.callsPerSecond,
        single.callsPerSecond,
        0,
      ),
      figure(
        `cluster of 3 masters against a cluster of 1 master: ledgered calls, ${what}`,
        'calls/s',
        three.callsPerSecond,
        one.callsPerSecond,
        0,
      ),
      figure(
        `cluster of 3 masters against one redis-server: server CPU per call, all masters together, ${what}`,
        'µs/call',
        serverTotal(three),
        serverTotal(single),
        2,
      ),
    ];
  });
}

const right = (title: string): Column => ({ title, align: 'right' });

function throughputTable(rows: readonly Row[]): string[] {
  return markdownTable(
    [
      { title: 'store (every server capped)' },
      ...['in flight', 'calls/s', '÷ one redis-server', '÷ cluster of 1 master', 'p50 ms', 'p99 ms'].map(right),
    ],
    rows.map((row) => {
      const single = find(rows, ONE_SERVER, row.inFlight);
      const one = find(rows, ONE_MASTER, row.inFlight);
      return [
        row.topology,
        String(row.inFlight),
        row.callsPerSecond.toFixed(0),
        single === undefined ? '—' : times(row.callsPerSecond / single.callsPerSecond),
        one === undefined || row.topology === ONE_SERVER ? '—' : times(row.callsPerSecond / one.callsPerSecond),
        ms(row.p50Us),
        ms(row.p99Us),
      ];
    }),
  );
}

function loadTable(rows: readonly Row[]): string[] {
  return markdownTable(
    [
      { title: 'store' },
      right('in flight'),
      ...['server CPU µs/call, each', 'all servers µs/call', 'server CPU, % of a core', 'periods throttled'].map(right),
      ...['commands/call', 'commands per read', 'bus messages/call'].map(right),
      ...['callers CPU µs/call', 'callers, % of a core', 'machine busy'].map(right),
    ],
    rows.map((row) => [
      row.topology,
      String(row.inFlight),
      each(row, (server) => us(server.usPerCall)),
      us(serverTotal(row)),
      each(row, (server) => percent(coreShare(row, server), 1)),
      each(row, (server) => percent(server.throttled)),
      each(row, (server) => server.commandsPerCall.toFixed(1)),
      each(row, (server) => server.commandsPerRead.toFixed(0)),
      each(row, (server) => server.busPerCall.toFixed(2)),
      us(row.clientUsPerCall),
      row.callerShares.map((share) => percent(share)).join(' / '),
      percent(row.machineBusy),
    ]),
  );
}

/** The page: what was capped and why, the calls per second, then where the servers' and callers' CPU went. */
export function markdownOf(report: ScalingReport): string {
  const { cap, plan, rows } = report;
  const top = Math.max(...rows.map((row) => row.inFlight));
  const [single, one, three] = [ONE_SERVER, ONE_MASTER, THREE_MASTERS].map((name) => find(rows, name, top));
  const summary =
    single === undefined || one === undefined || three === undefined
      ? []
      : [
          `With ${top} calls in flight the three masters carry ${times(three.callsPerSecond / single.callsPerSecond)} the calls per second of one server and`,
          `${times(three.callsPerSecond / one.callsPerSecond)} those of a one-master cluster. A ledgered call costs the servers ${us(serverTotal(single))} µs of CPU on one`,
          `server, ${us(serverTotal(one))} µs on one master and ${us(serverTotal(three))} µs over three masters (next table).`,
          '',
        ];
  return [
    '# Redis Cluster throughput against its masters, every server capped',
    '',
    ...headerLines(report.command, report.loadAtStart, new Date()),
    `- Plan: ${report.quick ? 'quick' : 'full'} mode, per number in flight ${plan.warmupMs} ms warm-up per store, then ${plan.durationMs / 1000} s per store in ${plan.rounds} interleaved rounds`,
    `- **Cap (a tuned setup):** every \`redis-server\` runs in a cgroup v1 \`cpu\` group of its own with \`cpu.cfs_quota_us\` ${cap.quotaUs} per \`cpu.cfs_period_us\` ${cap.periodUs}: at most ${capText(cap)}, the same for every server`,
    `- Callers: ${report.callers} child processes, each with its own node-redis client per store and its own ledger, the calls in flight split evenly between them; every round starts in all of them at once`,
    '',
    'Does the ledger’s throughput grow with the masters of a Redis Cluster? On this machine the client and every',
    'server share 2 cores, so without a cap calls per second cannot grow with masters (see “Redis Cluster',
    'beside one Redis server”). Here each server is held to the same small share of a core by the kernel',
    '(CFS bandwidth control), well below what the machine has left, so the servers run out first, as they',
    'would on machines of their own, and the callers do not (the second table shows both). The cap is what',
    'makes the growth measurable here; it is not a production setting, and the absolute calls per second only',
    'mean something against each other. The cluster client spends about twice the CPU per call of a',
    'single-server client, so the calls come from two caller processes rather than one.',
    `The period is short (${cap.periodUs / 1000} ms; the kernel’s smallest quota is 1 ms), so a throttled server waits at most`,
    `${(cap.periodUs - cap.quotaUs) / 1000} ms for its next quota. The load average at the end counts this bench’s own callers and`,
    'servers; “machine busy” in the second table is how busy the cores were while each store ran.',
    '',
    'The call is a ledgered no-op (`idempotent_mutate`, a fresh tool call id, each call in one of 256 runs so',
    'the cluster spreads them over its 64 buckets) through the public API: `createLedger`, `createRedisStorage`',
    'over node-redis `createClient` or `createCluster`. The stores are servers of the bench’s own without',
    'persistence: one `redis-server`; a cluster of one master holding every slot (the cluster layout with no',
    'second master to spread over); a cluster of three masters without replicas. Latency is that of one call',
    'while the others are in flight, waiting behind the cap included.',
    '',
    ...throughputTable(rows),
    '',
    ...summary,
    '### Where the servers’ and the callers’ CPU goes',
    '',
    'Each server’s CPU (user + system, `INFO cpu`), commands and reads of client input (`INFO stats`) and',
    'cluster bus messages (`CLUSTER INFO`) read before and after the rounds, divided by the calls; its share',
    'of a core while its store’s calls ran, and how many of the CFS periods it ran in ended with its quota',
    'used up (`cpu.stat`). A server at its cap and throttled in most periods is saturated. Commands per call',
    'count the scripts’ own commands; commands per read is how much a server batches. The callers’ CPU is',
    'that of the caller processes over the same rounds; machine busy is the share of all the machine’s',
    'cores doing any work over those rounds (`/proc/stat`), so below 100 % the cores were not what ran out.',
    '',
    ...loadTable(rows),
    '',
    'Why three masters give less than three times one server: a call on a cluster also writes the routes of',
    'its key and ticket (two more commands, `SET` and `SET NX GET`, sent before the create script: 14 commands',
    'per call against 12), and the one-master row shows what the cluster layout costs the servers on its own.',
    'Over three masters a call’s commands go to up to three servers, so each server holds a third of the calls',
    'in flight and reads fewer commands at a time (commands per read), which costs more CPU per command. That',
    'shows in the server CPU per call of the three masters together, against the one master’s. The change',
    'notice of the update script goes out with `SPUBLISH` on a cluster, so it stays on the record’s shard: the',
    'bus messages per call stay at 0 (a plain `PUBLISH` would be forwarded to every other node, about two',
    'thirds of a bus message per call on each of three masters).',
    '',
  ].join('\n');
}
