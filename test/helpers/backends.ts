/**
 * Durable backends for the ledger's concurrency, cross-process and crash tests, the fake provider
 * they count effects in, and the harness that runs `test/fixtures/ledger-worker.ts` as a child.
 *
 * A backend is one isolated store per test file (a temp SQLite file, a Redis key prefix, a
 * PostgreSQL table prefix): `open()` hands out one more storage instance with its own connection
 * on that store, and `childEnv()` tells a child process how to open the same store. Redis (once
 * through node-redis, once through ioredis) and PostgreSQL join the list when their driver file
 * exists and the server answers; with
 * `REQUIRE_INTEGRATION=1` a silent server yields an entry whose `open()` throws, so its tests
 * fail instead of vanishing.
 *
 * The fake provider is an append-only log of effects and voids, written under a lock file: an
 * effect whose ref was voided is refused, and a void of a ref that already executed is refused, so a
 * reconciler that voids before answering NOT_EXECUTED gives a final answer.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LedgerStorage, SideEffectClass, ToolSpec } from '../../src/index.js';
import { nodeSqliteModule } from '../../src/storage/sqlite/load-node-sqlite.js';
import { createSqliteStorage } from '../../src/storage/sqlite.js';
import { workerCommand } from './worker-command.js';

/**
 * The repository root. This module is also bundled into the worker (where `import.meta.url` is the
 * bundle's), so only the parent's code paths use it.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

// ---------------------------------------------------------------------------------------------
// Backends

/**
 * A durable backend's name: `sqlite` is SQLite through better-sqlite3, `node-sqlite` through
 * Node's built-in `node:sqlite`; `ioredis` is Redis through an ioredis client and `fromIoredis`.
 */
export type BackendName = 'sqlite' | 'node-sqlite' | 'redis' | 'ioredis' | 'redis-cluster' | 'postgres';
const BACKEND_NAMES: readonly string[] = ['sqlite', 'node-sqlite', 'redis', 'ioredis', 'redis-cluster', 'postgres'];

/** One storage instance on a backend's store. */
export interface OpenedStorage {
  readonly storage: LedgerStorage;
  /** The file, URL or connection string (plus prefix) the storage talks to. */
  readonly location: string;
  /** Close this instance. */
  cleanup(): Promise<void>;
}

/** A durable store shared by every storage instance and child process of one test file. */
export interface DurableBackend {
  readonly name: BackendName;
  /** One more storage instance with its own connection (file handle, client, pool). */
  open(): Promise<OpenedStorage>;
  /** Environment a child worker needs to open the same store ({@link openStorageFromEnv}). */
  childEnv(): Record<string, string>;
  /** Remove what the store holds (file, keys, tables). */
  dispose(): Promise<void>;
}

const ENV_BACKEND = 'HYPHAE_TEST_BACKEND';
const ENV_LOCATION = 'HYPHAE_TEST_LOCATION';
const ENV_PREFIX = 'HYPHAE_TEST_PREFIX';

const driverFile = (name: 'redis' | 'postgres'): string => join(ROOT, 'src', 'storage', `${name}.ts`);

/**
 * Open a storage instance on a store named by backend, location and prefix. The Redis and
 * PostgreSQL drivers load on first use (literal imports, so the worker's bundle carries them).
 */
export async function openStorage(name: BackendName, location: string, prefix: string): Promise<LedgerStorage> {
  switch (name) {
    case 'sqlite':
      return createSqliteStorage({ path: location, driver: 'better-sqlite3' });
    case 'node-sqlite':
      return createSqliteStorage({ path: location, driver: 'node:sqlite' });
    case 'redis': {
      const { createRedisStorage } = await import('../../src/storage/redis.js');
      return createRedisStorage({ url: location }, { prefix });
    }
    case 'ioredis': {
      const { openIoredisStorage } = await import('./ioredis-storage.js');
      return openIoredisStorage(location, prefix);
    }
    case 'redis-cluster': {
      // A node-redis cluster client on the startup nodes the location lists (`127.0.0.1:7181,...`).
      const { createRedisStorage } = await import('../../src/storage/redis.js');
      const { createCluster } = await import('redis');
      const rootNodes = location.split(',').map((node) => ({ url: `redis://${node}` }));
      const client = createCluster({ rootNodes });
      client.on('error', () => {});
      await client.connect();
      const storage = createRedisStorage({ client }, { prefix });
      return {
        ...storage,
        async close() {
          await storage.close();
          await client.close().catch(() => client.destroy());
        },
      };
    }
    case 'postgres': {
      const { createPostgresStorage } = await import('../../src/storage/postgres.js');
      return createPostgresStorage({ connectionString: location }, { tablePrefix: prefix });
    }
  }
}

/** Open the store a parent described with {@link DurableBackend.childEnv}. */
export function openStorageFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<LedgerStorage> {
  const name = env[ENV_BACKEND];
  const location = env[ENV_LOCATION];
  if (name === undefined || !BACKEND_NAMES.includes(name) || location === undefined) {
    throw new Error(`Set ${ENV_BACKEND} (${BACKEND_NAMES.join(', ')}) and ${ENV_LOCATION}`);
  }
  return openStorage(name as BackendName, location, env[ENV_PREFIX] ?? '');
}

const runTag = (): string => `${process.pid}_${randomUUID().slice(0, 8)}`;

function backendOn(name: BackendName, location: string, prefix: string, dispose: () => Promise<void>): DurableBackend {
  return {
    name,
    async open() {
      const storage = await openStorage(name, location, prefix);
      return {
        storage,
        location: prefix === '' ? location : `${location} (${prefix})`,
        cleanup: () => storage.close(),
      };
    },
    childEnv: () => ({ [ENV_BACKEND]: name, [ENV_LOCATION]: location, [ENV_PREFIX]: prefix }),
    dispose,
  };
}

function sqliteBackend(name: 'sqlite' | 'node-sqlite'): DurableBackend {
  const dir = mkdtempSync(join(tmpdir(), 'hyphae-ledger-db-'));
  return backendOn(name, join(dir, 'ledger.db'), '', async () =>
    rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 }),
  );
}

function redisBackend(url: string, name: 'redis' | 'ioredis' = 'redis'): DurableBackend {
  const prefix = `hyphae-test:${runTag()}:`;
  return backendOn(name, url, prefix, async () => {
    const { createClient } = await import('redis');
    const client = createClient({ url });
    client.on('error', () => {});
    await client.connect();
    try {
      let cursor = '0';
      do {
        const reply = (await client.sendCommand(['SCAN', cursor, 'MATCH', `${prefix}*`, 'COUNT', '1000'])) as [
          string,
          string[],
        ];
        cursor = String(reply[0]);
        if (reply[1].length > 0) await client.sendCommand(['DEL', ...reply[1]]);
      } while (cursor !== '0');
    } finally {
      await client.close();
    }
  });
}

function postgresBackend(connectionString: string): DurableBackend {
  const prefix = `t_${runTag()}_`;
  return backendOn('postgres', connectionString, prefix, async () => {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString });
    client.on('error', () => {});
    await client.connect();
    try {
      await client.query(`DROP TABLE IF EXISTS "${prefix}transitions", "${prefix}meta"`);
    } finally {
      await client.end();
    }
  });
}

/** A Redis Cluster of the test file's own on `basePort`..+5, stopped by `dispose()`. */
async function clusterBackend(basePort: number): Promise<DurableBackend | null> {
  const { deleteClusterKeys, ownClusterOrSkip } = await import('./redis-cluster.js');
  const cluster = await ownClusterOrSkip(basePort);
  if (cluster === null) return null;
  const prefix = `hyphae-test:${runTag()}:`;
  const location = cluster.startup.map((node) => `${node.host}:${node.port}`).join(',');
  return backendOn('redis-cluster', location, prefix, async () => {
    await deleteClusterKeys(cluster, prefix);
    await cluster.stop();
  });
}

/** An entry whose tests fail: the driver exists, the server does not answer, and CI requires it. */
function unreachableBackend(name: BackendName, reason: string): DurableBackend {
  const fail = (): never => {
    throw new Error(`REQUIRE_INTEGRATION=1 and the ${name} driver exists, but ${reason}`);
  };
  return { name, open: async () => fail(), childEnv: () => fail(), dispose: async () => {} };
}

/**
 * The durable backends to test: SQLite through better-sqlite3 always, and through `node:sqlite`
 * where the runtime has it (Node.js 22.13 and later); Redis and PostgreSQL when their driver file
 * exists and the server answers (PostgreSQL as user `postgres`, else `root`).
 */
export async function durableBackends(
  env: NodeJS.ProcessEnv = process.env,
  options: { readonly clusterPort?: number } = {},
): Promise<DurableBackend[]> {
  const required = env.REQUIRE_INTEGRATION === '1';
  const { POSTGRES_URL, REDIS_URL, probePostgres, probeRedis } = await import('./integration.js');
  const backends: DurableBackend[] = [sqliteBackend('sqlite')];
  if (nodeSqliteModule() !== undefined) backends.push(sqliteBackend('node-sqlite'));
  if (existsSync(driverFile('redis'))) {
    const probe = await probeRedis(REDIS_URL);
    if (probe.available) backends.push(redisBackend(REDIS_URL), redisBackend(REDIS_URL, 'ioredis'));
    else if (required)
      backends.push(unreachableBackend('redis', `${probe.address} did not answer PING (${probe.reason})`));
  }
  if (options.clusterPort !== undefined) {
    const cluster = await clusterBackend(options.clusterPort);
    if (cluster !== null) backends.push(cluster);
  }
  if (existsSync(driverFile('postgres'))) {
    const asRoot = new URL(POSTGRES_URL);
    asRoot.username = 'root';
    const candidates = [POSTGRES_URL, asRoot.href];
    const probes = [];
    for (const candidate of candidates) {
      const probe = await probePostgres(candidate);
      probes.push(probe);
      if (probe.available) {
        backends.push(postgresBackend(candidate));
        break;
      }
    }
    if (required && probes.every((probe) => !probe.available)) {
      const reasons = probes.map((probe) => probe.reason).join('; ');
      backends.push(
        unreachableBackend('postgres', `${probes[0]?.address} did not answer as \`postgres\` or \`root\` (${reasons})`),
      );
    }
  }
  return backends;
}

// ---------------------------------------------------------------------------------------------
// The charge tool and the fake provider

/** Agent and policy of every ledger in these tests (child workers included). */
export const AGENT_ID = 'hyphae-test-agent';
export const POLICY_VERSION = 'test-1';

/** Arguments of the `charge` tool. */
export interface ChargeArgs {
  readonly amount: number;
  readonly recipient: string;
  readonly idempotencyKey: string;
}

/** What one `charge` returns: which operation, and which process executed it. */
export interface ChargeResult {
  readonly op: string;
  readonly amount: number;
  readonly executedBy: number;
}

/** The `charge` tool's spec for a class; the same spec in the parent and in every worker. */
export function chargeSpec(sideEffectClass: SideEffectClass, extra: Partial<ToolSpec> = {}): ToolSpec {
  return { name: 'charge', sideEffectClass, providerIdempotencyKeyParam: 'idempotencyKey', ...extra };
}

/**
 * The provider operation ref of a call: one per call, or with `fence`, one per attempt (the
 * attempt's fence as suffix), so a ref voided by a reconciler never blocks the attempt after it.
 */
export const opRefOf = (toolCallId: string, fence?: number): string =>
  fence === undefined ? `op_${toolCallId}` : `op_${toolCallId}_f${fence}`;

/** One line of the fake provider's log: an effect that happened. */
export interface ProviderEffect {
  readonly op: string;
  readonly toolCallId: string;
  readonly pid: number;
  readonly result: ChargeResult;
  /** Set when the caller asks the provider to dedupe by idempotency key. */
  readonly idempotencyKey?: string;
}

/** One line of the fake provider's log: a ref voided (cancelled) before any effect with it. */
export interface ProviderVoid {
  readonly void: string;
  readonly pid: number;
}

/** The provider refused an operation: its ref was voided. */
export class ProviderRejectedError extends Error {
  readonly code = 'provider_rejected';
  override readonly name = 'ProviderRejectedError';
  readonly op: string;

  constructor(op: string) {
    super(`The provider rejected \`${op}\`: the operation was voided`);
    this.op = op;
  }
}

/** How long a provider call waits for the log's lock before giving up. */
const PROVIDER_LOCK_TIMEOUT_MS = 10_000;

/** Run `fn` holding the provider's lock (a lock file), so a check and its append are one step. */
function withProviderLock<T>(log: string, fn: () => T): T {
  const lock = `${log}.lock`;
  const deadline = Date.now() + PROVIDER_LOCK_TIMEOUT_MS;
  let fd: number | undefined;
  while (fd === undefined) {
    try {
      fd = openSync(lock, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (Date.now() > deadline) throw new Error(`The fake provider's lock \`${lock}\` is still held`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
    }
  }
  try {
    return fn();
  } finally {
    closeSync(fd);
    rmSync(lock, { force: true });
  }
}

function appendLine(log: string, line: ProviderEffect | ProviderVoid): void {
  const fd = openSync(log, 'a');
  try {
    writeSync(fd, `${JSON.stringify(line)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function readLog(log: string): (ProviderEffect | ProviderVoid)[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as ProviderEffect | ProviderVoid);
}

/**
 * The fake provider's charge: append the effect and fsync it before returning it. Refused with
 * {@link ProviderRejectedError} when its ref was voided. With an `idempotencyKey`, an earlier
 * effect with that key is returned instead, and nothing is appended (a provider's key dedupe).
 */
export function providerCharge(log: string, effect: ProviderEffect): ProviderEffect {
  return withProviderLock(log, () => {
    const lines = readLog(log);
    if (lines.some((line) => 'void' in line && line.void === effect.op)) throw new ProviderRejectedError(effect.op);
    if (effect.idempotencyKey !== undefined) {
      const earlier = lines.find((line) => 'op' in line && line.idempotencyKey === effect.idempotencyKey);
      if (earlier !== undefined && 'op' in earlier) return earlier;
    }
    appendLine(log, effect);
    return effect;
  });
}

/**
 * The fake provider's cancel: void `op` so that any later charge with it is refused, unless it
 * already executed, in which case its effect is returned and nothing is voided.
 */
export function voidOperation(log: string, op: string): 'voided' | ProviderEffect {
  return withProviderLock(log, () => {
    const done = readLog(log).find((line): line is ProviderEffect => 'op' in line && line.op === op);
    if (done !== undefined) return done;
    appendLine(log, { void: op, pid: process.pid });
    return 'voided';
  });
}

/** Every effect in the fake provider's log (none when it does not exist). */
export function readEffects(log: string): ProviderEffect[] {
  return readLog(log).filter((line): line is ProviderEffect => 'op' in line);
}

/** Every ref voided in the fake provider's log. */
export function readVoids(log: string): string[] {
  return readLog(log).flatMap((line) => ('void' in line ? [line.void] : []));
}

// ---------------------------------------------------------------------------------------------
// Child workers

/** Where a worker kills itself with SIGKILL (`crashAt`) or stops with SIGSTOP (`pauseAt`). */
export const CRASH_POINTS = [
  'after-claim',
  'inside-side-effect-before-provider',
  'after-provider-before-completion',
  'after-completion',
] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];

/** What a worker does; passed as JSON in argv[2]. */
export interface WorkerConfig {
  readonly sideEffectClass: SideEffectClass;
  readonly toolCallId: string;
  readonly args: ChargeArgs;
  /** The fake provider's log. */
  readonly effectLog: string;
  readonly crashAt?: CrashPoint;
  /** Stop with SIGSTOP at this point; the parent resumes the worker with SIGCONT. */
  readonly pauseAt?: CrashPoint;
  /** Wait for this file to exist before calling (after printing {@link WORKER_READY} to stderr). */
  readonly startSignal?: string;
  /** Default 300. */
  readonly leaseTtlMs?: number;
  /** Default 15 000. */
  readonly pollTimeoutMs?: number;
  /** The ledger's worker-death gate (default: the ledger's, `'consequential'`). */
  readonly reclaimRequiresDeathSignal?: boolean | 'consequential';
  /** The ledger's `presumedDeadAfterMs` (default twice the lease). */
  readonly presumedDeadAfterMs?: number;
  /** Wait this long inside the body, before the side effect. */
  readonly bodyDelayMs?: number;
  /** When the body records the external operation: after the provider call (default), before it, or never. */
  readonly recordRef?: 'after-provider' | 'before-provider' | 'never';
  /**
   * A reconciler that looks the ref up in the fake provider's log: `provider-log` answers
   * NOT_EXECUTED when it is absent (not final: a paused owner may still use the ref);
   * `provider-log-voiding` voids the ref at the provider first, so its NOT_EXECUTED is final.
   */
  readonly reconciler?: 'provider-log' | 'provider-log-voiding';
  /** One provider ref per attempt (`opRefOf(toolCallId, fence)`) instead of one per call. */
  readonly attemptRefs?: boolean;
  /** Send the call's idempotency key, which the fake provider dedupes by. */
  readonly providerDedupe?: boolean;
  /** Record the call and its effect as a history (JSON lines, shared by the workers of one test). */
  readonly historyFile?: string;
}

/** The one JSON line a worker prints when it does not crash. */
export type WorkerOutput =
  | { readonly ok: true; readonly result: ChargeResult }
  | { readonly ok: false; readonly code: string; readonly name: string; readonly message: string };

/** The line a worker writes to stderr once its store is open and it waits for the start signal. */
export const WORKER_READY = 'hyphae-worker:ready';

/** How a worker ended. */
export interface WorkerExit {
  readonly pid: number;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** The parsed stdout line, or null when there was none (a crash). */
  readonly output: WorkerOutput | null;
  readonly stderr: string;
}

/** A running worker. */
export interface WorkerRun {
  readonly pid: number;
  /** Resolves when the worker is ready for the start signal. */
  readonly ready: Promise<void>;
  readonly exit: Promise<WorkerExit>;
}

/** Start a worker on `backend`'s store; `children` holds it until it has exited. */
function spawnWorker(backend: DurableBackend, config: WorkerConfig, children: Set<ChildProcess>): WorkerRun {
  const { command, args } = workerCommand('ledger-worker');
  const child = spawn(command, [...args, JSON.stringify(config)], {
    cwd: ROOT,
    env: { ...process.env, ...backend.childEnv() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const pid = child.pid ?? -1;
  let stdout = '';
  let stderr = '';
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    if (stderr.includes(WORKER_READY)) markReady();
  });
  const exit = new Promise<WorkerExit>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      children.delete(child);
      const line = stdout.trim().split('\n').at(-1) ?? '';
      try {
        const output = line === '' ? null : (JSON.parse(line) as WorkerOutput);
        resolve({ pid, code, signal, output, stderr: stderr.replace(`${WORKER_READY}\n`, '') });
      } catch {
        reject(new Error(`Worker ${pid} printed a line that is not JSON: ${line}\n${stderr}`));
      }
    });
  });
  // A worker that dies before it is ready must not leave a test waiting on `ready` forever.
  const readyOrExit = Promise.race([
    ready,
    exit.then((ended) => {
      throw new Error(`Worker ${pid} exited (${ended.signal ?? ended.code}) before it was ready:\n${ended.stderr}`);
    }),
  ]);
  readyOrExit.catch(() => {});
  return { pid, ready: readyOrExit, exit };
}

/** The workers of one test: `kill()` them in `afterEach` (or `onTestFinished` for concurrent tests). */
export interface WorkerGroup {
  spawn(config: WorkerConfig): WorkerRun;
  /** Spawn and wait for the exit. */
  run(config: WorkerConfig): Promise<WorkerExit>;
  /** SIGKILL every worker of the group that is still running. */
  kill(): void;
  /** The history process names of the workers that ended by a signal (crashed or killed). */
  crashed(): string[];
}

/** A worker's process name in a history. */
export const historyProcess = (pid: number): string => `worker-${pid}`;

/** A {@link WorkerGroup} on `backend`'s store. */
export function createWorkerGroup(backend: DurableBackend): WorkerGroup {
  const children = new Set<ChildProcess>();
  const crashed: string[] = [];
  const start = (config: WorkerConfig): WorkerRun => {
    const run = spawnWorker(backend, config, children);
    run.exit.then(
      (exit) => {
        if (exit.signal !== null) crashed.push(historyProcess(exit.pid));
      },
      () => {},
    );
    return run;
  };
  return {
    spawn: start,
    run: (config) => start(config).exit,
    kill() {
      for (const child of children) {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGKILL');
          crashed.push(historyProcess(child.pid ?? -1));
        }
      }
      children.clear();
    },
    crashed: () => [...crashed],
  };
}

/** A scratch directory for effect logs and start signals. */
export function createScratch(): { file(name: string): string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'hyphae-ledger-scratch-'));
  return {
    file: (name) => join(dir, name),
    remove: () => rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 }),
  };
}
