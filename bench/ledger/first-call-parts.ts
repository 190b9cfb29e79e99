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
import { createLedger, type LedgerStorage } from '../../src/index.js';
import { createMemoryStorage } from '../../src/storage/memory.js';
import { createdResult, decodeRecord, encodeRecord } from '../../src/storage/record-codec.js';
import { CREATE_RECORD_SCRIPT, UPDATE_RECORD_SCRIPT } from '../../src/storage/redis/scripts.js';
import { createRedisStorage } from '../../src/storage/redis.js';
import { commandLine, figure, headerLines, load, us, writeArea } from '../lib/area-report.js';
import { markdownTable } from '../lib/markdown-table.js';
import { powertoolsIdempotent, recordingCacheClient, sendCommands } from '../lib/powertools-redis.js';
import { randomKey } from '../lib/random-key.js';
import { type BenchRedisClient, connectRedis, deleteByPrefix, redisUnavailable } from '../lib/redis-bench-client.js';
import { openRawRedis } from '../lib/redis-raw.js';
import { ticketSource } from './cases.js';
import { countWrites } from './write-counts.js';

const quick = process.argv.includes('--quick');
/** Calls per segment, and segments per case (interleaved; medians of the segments' means are reported). */
const SEGMENT = 300;
const SEGMENTS = quick ? 4 : 24;

const ARGS = { orderId: 'ord_42', amount: 100 } as const;
const SPEC = { name: 'bench_noop', sideEffectClass: 'idempotent_mutate' } as const;

/** One measured case: a name, and the call it repeats. */
interface Case {
  readonly name: string;
  readonly run: () => Promise<unknown>;
}

/** Median over the segments of the mean wall time and the mean client CPU time per call. */
interface Timing {
  readonly wallUs: number;
  readonly cpuUs: number;
}

/**
 * A store that costs one round trip (`PING`) per create and per update and keeps its records in a
 * memory store: the ledger's own work over a network store, without a driver. With `codec` it also
 * keeps each record as the Redis driver does, a JSON document encoded on every write and decoded
 * when a create meets a stored one.
 */
function pingStore(client: BenchRedisClient, codec: boolean): LedgerStorage {
  const memory = createMemoryStorage();
  const docs = new Map<string, string>();
  const ping = () => client.sendCommand(['PING']);
  return {
    capabilities: { name: codec ? 'ping+codec' : 'ping', crossProcess: true, durable: true },
    async create(record) {
      await ping();
      if (!codec) return memory.create(record);
      const doc = encodeRecord(record);
      const result = await memory.create(record);
      if (result.created) {
        docs.set(record.key, doc);
        return createdResult(doc, record.key);
      }
      const stored = docs.get(result.record.key) ?? encodeRecord(result.record);
      return { ...result, record: decodeRecord(stored, record.key) };
    },
    async update(key, expectedVersion, next) {
      await ping();
      if (!codec) return memory.update(key, expectedVersion, next);
      const doc = encodeRecord(next);
      const written = await memory.update(key, expectedVersion, next);
      if (written) docs.set(key, doc);
      return written;
    },
    get: (key) => memory.get(key),
    findByTicket: (ticketKey) => memory.findByTicket(ticketKey),
    list: (query) => memory.list(query),
    close: () => memory.close(),
  };
}

/** A fresh call each time (`call`) or the same call again (`replay`) of a no-op ledgered over `storage`. */
async function ledgered(storage: LedgerStorage, kind: 'call' | 'replay'): Promise<() => Promise<unknown>> {
  const tool = createLedger({ storage, agentId: 'bench-agent', policyVersion: 'bench.1' }).tool(
    SPEC,
    async () => undefined,
  );
  const nextTicket = ticketSource();
  if (kind === 'call') return () => tool(ARGS, { toolCallId: nextTicket() });
  const toolCallId = nextTicket();
  await tool(ARGS, { toolCallId });
  return () => tool(ARGS, { toolCallId });
}

async function measure(cases: readonly Case[]): Promise<Timing[]> {
  const walls: number[][] = cases.map(() => []);
  const cpus: number[][] = cases.map(() => []);
  // One segment of each case first, unmeasured: the JIT and the server's caches warm up on all.
  for (let segment = -1; segment < SEGMENTS; segment += 1) {
    for (const [index, each] of cases.entries()) {
      const cpu = process.cpuUsage();
      const start = performance.now();
      for (let i = 0; i < SEGMENT; i += 1) await each.run();
      const wall = ((performance.now() - start) * 1000) / SEGMENT;
      const used = process.cpuUsage(cpu);
      if (segment < 0) continue;
      walls[index]?.push(wall);
      cpus[index]?.push((used.user + used.system) / SEGMENT);
    }
  }
  const median = (values: readonly number[]): number => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
  };
  return cases.map((_, index) => ({ wallUs: median(walls[index] ?? []), cpuUs: median(cpus[index] ?? []) }));
}

/** The rows of one kind of call, in ladder order. */
interface Ladder {
  readonly roundTrips: Case;
  readonly ledgerOverPing: Case;
  readonly withCodec: Case;
  readonly scripts: Case;
  readonly hyphae: Case;
  readonly powertoolsRaw: Case;
  readonly powertools: Case;
}

async function ladders(client: BenchRedisClient, run: string): Promise<{ call: Ladder; replay: Ladder }> {
  const storage = createRedisStorage({ client }, { prefix: `${run}hyphae:` });
  const writes = await countWrites('redis', storage);
  const raw = await openRawRedis(client, `${run}raw:`, { create: CREATE_RECORD_SCRIPT, update: UPDATE_RECORD_SCRIPT });
  const recording = recordingCacheClient(client);
  const captured = powertoolsIdempotent(recording.client, `${run}captured`, async () => undefined);
  const capturedPayload = { ...ARGS, toolCallId: `captured_${randomKey().slice(0, 8)}` };
  await captured(capturedPayload);
  const firstCommands = recording.commands.splice(0);
  await captured(capturedPayload);
  const replayCommands = recording.commands.splice(0);
  const powertools = powertoolsIdempotent(client, `${run}powertools`, async () => undefined);
  const nextTicket = ticketSource();
  const replayPayload = { ...ARGS, toolCallId: nextTicket() };
  await powertools(replayPayload);
  const rawReplayKey = `${run}powertools-raw#replay`;
  await sendCommands(client, firstCommands, rawReplayKey);
  const ping = () => client.sendCommand(['PING']);
  return {
    call: {
      roundTrips: {
        name: 'two PINGs',
        run: async () => {
          await ping();
          return ping();
        },
      },
      ledgerOverPing: {
        name: 'ledger over a PING-per-write store',
        run: await ledgered(pingStore(client, false), 'call'),
      },
      withCodec: { name: '… that also encodes records', run: await ledgered(pingStore(client, true), 'call') },
      scripts: { name: 'the driver’s two scripts alone (EVALSHA)', run: raw.write(writes.call.docs) },
      hyphae: { name: 'hyphae on Redis', run: await ledgered(storage, 'call') },
      powertoolsRaw: {
        name: 'powertools’ two SETs alone',
        run: () => sendCommands(client, firstCommands, `${run}powertools-raw#${randomKey()}`),
      },
      powertools: { name: 'powertools on Redis', run: () => powertools({ ...ARGS, toolCallId: nextTicket() }) },
    },
    replay: {
      roundTrips: { name: 'one PING', run: ping },
      ledgerOverPing: {
        name: 'ledger over a PING-per-write store',
        run: await ledgered(pingStore(client, false), 'replay'),
      },
      withCodec: { name: '… that also encodes records', run: await ledgered(pingStore(client, true), 'replay') },
      scripts: {
        name: 'the driver’s create script meeting the record',
        run: await raw.replay(writes.call.docs.at(-1) ?? '{}'),
      },
      hyphae: { name: 'hyphae on Redis', run: await ledgered(storage, 'replay') },
      powertoolsRaw: {
        name: 'powertools’ refused SET NX and GET alone',
        run: () => sendCommands(client, replayCommands, rawReplayKey),
      },
      powertools: { name: 'powertools on Redis', run: () => powertools(replayPayload) },
    },
  };
}

/** What each layer adds, from the rows of one ladder. */
function parts(t: Record<keyof Ladder, Timing>): [string, number, number][] {
  const less = (a: Timing, b: Timing): [number, number] => [a.wallUs - b.wallUs, a.cpuUs - b.cpuUs];
  const driverRest: [number, number] = [
    t.hyphae.wallUs - t.withCodec.wallUs - (t.scripts.wallUs - t.roundTrips.wallUs),
    t.hyphae.cpuUs - t.withCodec.cpuUs - (t.scripts.cpuUs - t.roundTrips.cpuUs),
  ];
  return [
    ['hyphae: the ledger’s own work (ledger over PINGs − PINGs)', ...less(t.ledgerOverPing, t.roundTrips)],
    [
      'hyphae: encoding and decoding records (… with codec − ledger over PINGs)',
      ...less(t.withCodec, t.ledgerOverPing),
    ],
    ['hyphae: the scripts on the server and their arguments (scripts − PINGs)', ...less(t.scripts, t.roundTrips)],
    ['hyphae: the rest of the driver (hyphae − with codec − scripts’ share)', ...driverRest],
    ['hyphae: in all, above the bare round trips', ...less(t.hyphae, t.roundTrips)],
    ['powertools: its commands on the server (its commands − PINGs)', ...less(t.powertoolsRaw, t.roundTrips)],
    ['powertools: its own work (powertools − its commands)', ...less(t.powertools, t.powertoolsRaw)],
    ['powertools: in all, above the bare round trips', ...less(t.powertools, t.roundTrips)],
  ];
}

async function main(): Promise<void> {
  const command = commandLine();
  const loadAtStart = load();
  const unavailable = await redisUnavailable();
  if (unavailable !== null) {
    console.error(`first-call parts not measured: ${unavailable}`);
    process.exitCode = 1;
    return;
  }
  console.log(`${command}: ${quick ? 'quick' : 'full'} run, ${SEGMENTS} segments of ${SEGMENT} calls per case`);
  const run = `hyphae-bench:${randomKey().slice(0, 12)}:`;
  const client = await connectRedis();
  try {
    const built = await ladders(client, run);
    const keys = Object.keys(built.call) as (keyof Ladder)[];
    const measured: Record<'call' | 'replay', Record<keyof Ladder, Timing>> = { call: {}, replay: {} } as never;
    for (const kind of ['call', 'replay'] as const) {
      const timings = await measure(keys.map((key) => built[kind][key]));
      for (const [index, key] of keys.entries()) {
        measured[kind][key] = timings[index] as Timing;
        const { wallUs, cpuUs } = measured[kind][key];
        console.log(
          `  ${kind.padEnd(6)} ${built[kind][key].name.padEnd(48)} ${us(wallUs).padStart(7)} µs  cpu ${us(cpuUs)} µs`,
        );
      }
    }
    await writeReport(command, loadAtStart, built, measured);
  } finally {
    await deleteByPrefix(client, run);
    await client.close();
  }
  console.log('wrote bench/results/first-call-parts.json and bench/results/first-call-parts.md');
}

async function writeReport(
  command: string,
  loadAtStart: number,
  built: { call: Ladder; replay: Ladder },
  measured: Record<'call' | 'replay', Record<keyof Ladder, Timing>>,
): Promise<void> {
  const kinds = [
    ['call', 'first call (a new key each time)'],
    ['replay', 'replay (the same key again)'],
  ] as const;
  const keys = Object.keys(built.call) as (keyof Ladder)[];
  const rows = kinds.flatMap(([kind, title]) =>
    keys.map((key) => [title, built[kind][key].name, us(measured[kind][key].wallUs), us(measured[kind][key].cpuUs)]),
  );
  const partRows = kinds.flatMap(([kind, title]) =>
    parts(measured[kind]).map(([part, wall, cpu]) => [title, part, us(wall), us(cpu)]),
  );
  const figures = kinds.flatMap(([kind]) => [
    figure(
      `first-call parts ${kind}: hyphae on Redis ÷ powertools on Redis (mean µs)`,
      'µs',
      measured[kind].hyphae.wallUs,
      measured[kind].powertools.wallUs,
    ),
    ...parts(measured[kind]).map(([part, wall]) =>
      figure(`first-call parts ${kind}: ${part} ÷ the bare round trips`, 'µs', wall, measured[kind].roundTrips.wallUs),
    ),
  ]);
  const markdown = [
    '# Where a call’s time goes on Redis, layer by layer',
    '',
    ...headerLines(command, loadAtStart, new Date()),
    `- Plan: ${quick ? 'quick' : 'full'} mode; ${SEGMENTS} interleaved segments of ${SEGMENT} calls per case, after one unmeasured segment of each; medians of the segments' means`,
    '',
    `One node-redis client on the shared server (127.0.0.1:6379), calls one at a time. The rows climb from
the bare round trips a call needs (PING), through the ledger over a store that costs one PING per write
and keeps its records in memory (no driver, no scripts), the same store encoding every record it writes
and decoding the one a create meets as the Redis driver does, the driver's scripts sent alone
(the raw rows of the Powertools comparison), to the ledger on the Redis driver; then Powertools' commands
alone and Powertools itself. The ledgered calls are those of the comparison above (an
\`idempotent_mutate\` no-op, a fresh tool call id per first call). CPU is this process's user + system
time per call; the server's work shows only in the wall time.`,
    '',
    ...markdownTable(
      [
        { title: 'case' },
        { title: 'row' },
        { title: 'mean µs', align: 'right' },
        { title: 'client CPU µs', align: 'right' },
      ],
      rows,
    ),
    '',
    'What each layer adds (differences of the rows above; a difference of two medians, so small ones are noise):',
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
