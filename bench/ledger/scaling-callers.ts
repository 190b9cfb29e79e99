/**
 * The callers of the cluster scaling bench: child processes, each with its own node-redis clients
 * and ledger, that keep ledgered calls in flight when the parent says so. One Node process cannot
 * drive three masters' worth of cluster calls (the cluster client's CPU per call is several times
 * one server's), so the calls are spread over several; every round starts in all of them at once
 * and ends when the last one is done, so they load the servers together.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { createClient, createCluster } from 'redis';
import { createLedger } from '../../src/index.js';
import { createRedisStorage } from '../../src/storage/redis.js';
import { flight } from '../lib/in-flight.js';
import { collectGarbage, type Op } from '../lib/measure.js';

/** Where a caller sends its calls: one server's URL, or a cluster's masters. */
export interface TopologySpec {
  readonly name: string;
  readonly urls: readonly string[];
  readonly cluster: boolean;
  readonly prefix: string;
}

/** Runs each caller's calls are spread over, so the cluster spreads them over its buckets. */
const RUNS = 256;

type CallerRequest =
  | { readonly kind: 'open'; readonly topologies: readonly TopologySpec[] }
  | { readonly kind: 'run'; readonly topology: number; readonly inFlight: number; readonly ms: number }
  | { readonly kind: 'close' };

/** What one caller did in one round. */
interface CallerRound {
  readonly calls: number;
  readonly elapsedMs: number;
  /** The caller process's CPU (user + system) over the round, in µs. */
  readonly cpuUs: number;
  readonly latenciesUs: readonly number[];
}

type CallerReply =
  | { readonly kind: 'done' }
  | ({ readonly kind: 'ran' } & CallerRound)
  | { readonly kind: 'failed'; readonly message: string };

/** What all callers did in one round, together. */
export interface Round {
  readonly calls: number;
  /** From the start of the round to the end of the last caller's last call. */
  readonly elapsedMs: number;
  readonly cpuUs: readonly number[];
  readonly latenciesUs: readonly number[];
}

/** The callers, as the parent sees them. */
export interface Callers {
  readonly count: number;
  /** Keep `inFlight` calls in flight on `topology`, split evenly over the callers, for `ms`. */
  run(topology: number, inFlight: number, ms: number): Promise<Round>;
  /** Close the callers' clients and wait for them to exit; kill them if a round is under way. */
  close(): Promise<void>;
}

/** The ledgered no-op call on one topology, a fresh tool call id each time. */
async function openCall(spec: TopologySpec): Promise<{ call: Op; close: () => Promise<void> }> {
  const client = spec.cluster
    ? createCluster({ rootNodes: spec.urls.map((url) => ({ url })) })
    : createClient({ url: spec.urls[0] ?? '' });
  client.on('error', () => undefined);
  await client.connect();
  const storage = createRedisStorage({ client }, { prefix: spec.prefix });
  const ledger = createLedger({ storage, agentId: 'bench-agent', policyVersion: 'bench.1' });
  const tool = ledger.tool({ name: 'bench_noop', sideEffectClass: 'idempotent_mutate' }, async () => undefined);
  const caller = `${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  let seq = 0;
  return {
    call: () => {
      seq += 1;
      return tool(
        { orderId: 'ord_42' },
        { toolCallId: `call_${caller}_${seq}`, scope: { runId: `run_${seq % RUNS}` } },
      );
    },
    close: async () => {
      await storage.close();
      await client.close();
    },
  };
}

/** The child's side: answer the parent's requests until it says `close`. */
export function runCaller(): void {
  let opened: { call: Op; close: () => Promise<void> }[] = [];
  const handle = async (request: CallerRequest): Promise<CallerReply> => {
    if (request.kind === 'open') {
      for (const spec of request.topologies) opened.push(await openCall(spec));
      return { kind: 'done' };
    }
    if (request.kind === 'close') {
      for (const each of opened) await each.close();
      opened = [];
      return { kind: 'done' };
    }
    const call = opened[request.topology]?.call;
    if (call === undefined) throw new Error(`No topology ${request.topology}`);
    const latenciesUs: number[] = [];
    collectGarbage();
    const cpu = process.cpuUsage();
    const { calls, elapsedMs } = await flight(call, request.inFlight, request.ms, {
      record: (us) => latenciesUs.push(us),
    });
    const spent = process.cpuUsage(cpu);
    return { kind: 'ran', calls, elapsedMs, cpuUs: spent.user + spent.system, latenciesUs };
  };
  const answer = async (request: CallerRequest): Promise<void> => {
    const failed = (error: unknown): CallerReply => ({ kind: 'failed', message: String(error) });
    process.send?.(await handle(request).catch(failed));
    if (request.kind === 'close') process.disconnect();
  };
  process.on('message', (request: CallerRequest) => {
    answer(request).catch(() => process.exit(1));
  });
  // The parent is gone (it failed, or was stopped): nothing is left to answer.
  process.on('disconnect', () => process.exit(0));
}

/** Send `request` to `child` and wait for its reply. */
function ask(child: ChildProcess, request: CallerRequest): Promise<CallerReply> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null): void => reject(new Error(`A caller exited (${code}) before it answered`));
    child.once('exit', onExit);
    child.once('message', (reply: CallerReply) => {
      child.off('exit', onExit);
      if (reply.kind === 'failed') reject(new Error(`A caller failed: ${reply.message}`));
      else resolve(reply);
    });
    child.send(request);
  });
}

/** Fork `count` callers running `script` with `args`, each connected to every topology. */
export async function startCallers(
  script: string,
  args: readonly string[],
  count: number,
  topologies: readonly TopologySpec[],
): Promise<Callers> {
  const children = Array.from({ length: count }, () => fork(script, [...args], { stdio: 'inherit' }));
  const exited = children.map(
    (child) =>
      new Promise<void>((resolve) => (child.exitCode === null ? child.once('exit', () => resolve()) : resolve())),
  );
  let pending = 0;
  const all = async (request: CallerRequest): Promise<CallerReply[]> => {
    pending += 1;
    try {
      return await Promise.all(children.map((child) => ask(child, request)));
    } finally {
      pending -= 1;
    }
  };
  const kill = async (): Promise<void> => {
    for (const child of children) child.kill('SIGKILL');
    await Promise.all(exited);
  };
  try {
    await all({ kind: 'open', topologies });
  } catch (error) {
    await kill();
    throw error;
  }
  return {
    count,
    async run(topology, inFlight, ms) {
      const share = Math.max(1, Math.round(inFlight / count));
      const rounds = (await all({ kind: 'run', topology, inFlight: share, ms })) as (CallerRound & { kind: 'ran' })[];
      return {
        calls: rounds.reduce((sum, round) => sum + round.calls, 0),
        elapsedMs: Math.max(...rounds.map((round) => round.elapsedMs)),
        cpuUs: rounds.map((round) => round.cpuUs),
        latenciesUs: rounds.flatMap((round) => round.latenciesUs),
      };
    },
    async close() {
      // Callers in the middle of a round (the run was stopped) are killed, not asked.
      if (pending > 0) return kill();
      await all({ kind: 'close' }).catch(kill);
      await Promise.all(exited);
    },
  };
}
