/**
 * Durable backends for the ledger's concurrency, cross-process and crash tests, the fake provider
 * they count effects in, and the harness that runs `test/fixtures/ledger-worker.ts` as a child.
 *
 * A backend is one isolated store per test file (a temp SQLite file, a Redis key prefix, a
 * PostgreSQL table prefix): `open()` hands out one more storage instance with its own connection
 * on that store, and `childEnv()` tells a child process how to open the same store. Redis and
 * PostgreSQL join the list when their driver file exists and the server answers; with
 * `REQUIRE_INTEGRATION=1` a silent server yields an entry whose `open()` throws, so its tests
 * fail instead of vanishing.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { LedgerStorage, SideEffectClass, ToolSpec } from '../../src/index.js';
import { createSqliteStorage } from '../../src/storage/sqlite.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WORKER = fileURLToPath(new URL('../fixtures/ledger-worker.ts', import.meta.url));

// ---------------------------------------------------------------------------------------------
// Backends

/** A durable backend's name. */
export type BackendName = 'sqlite' | 'redis' | 'postgres';

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

type DriverFactory = (connection: Record<string, string>, settings: Record<string, string>) => LedgerStorage;

const driverFile = (name: BackendName): string => join(ROOT, 'src', 'storage', `${name}.ts`);

/** Load a driver by path at run time, so a driver that does not exist yet breaks neither tsc nor the list. */
async function loadDriver(name: 'redis' | 'postgres'): Promise<DriverFactory> {
  const exportName = name === 'redis' ? 'createRedisStorage' : 'createPostgresStorage';
  const module = (await import(pathToFileURL(driverFile(name)).href)) as Record<string, unknown>;
  const factory = module[exportName];
  if (typeof factory !== 'function') throw new Error(`\`src/storage/${name}.ts\` does not export \`${exportName}\``);
  return factory as DriverFactory;
}

/** Open a storage instance on a store named by backend, location and prefix. */
export async function openStorage(name: BackendName, location: string, prefix: string): Promise<LedgerStorage> {
  switch (name) {
    case 'sqlite':
      return createSqliteStorage({ path: location });
    case 'redis':
      return (await loadDriver('redis'))({ url: location }, { prefix });
    case 'postgres':
      return (await loadDriver('postgres'))({ connectionString: location }, { tablePrefix: prefix });
  }
}

/** Open the store a parent described with {@link DurableBackend.childEnv}. */
export function openStorageFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<LedgerStorage> {
  const name = env[ENV_BACKEND];
  const location = env[ENV_LOCATION];
  if ((name !== 'sqlite' && name !== 'redis' && name !== 'postgres') || location === undefined) {
    throw new Error(`Set ${ENV_BACKEND} (sqlite, redis or postgres) and ${ENV_LOCATION}`);
  }
  return openStorage(name, location, env[ENV_PREFIX] ?? '');
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

function sqliteBackend(): DurableBackend {
  const dir = mkdtempSync(join(tmpdir(), 'hyphae-ledger-db-'));
  return backendOn('sqlite', join(dir, 'ledger.db'), '', async () => rmSync(dir, { recursive: true, force: true }));
}

function redisBackend(url: string): DurableBackend {
  const prefix = `hyphae-test:${runTag()}:`;
  return backendOn('redis', url, prefix, async () => {
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

/** An entry whose tests fail: the driver exists, the server does not answer, and CI requires it. */
function unreachableBackend(name: BackendName, reason: string): DurableBackend {
  const fail = (): never => {
    throw new Error(`REQUIRE_INTEGRATION=1 and the ${name} driver exists, but ${reason}`);
  };
  return { name, open: async () => fail(), childEnv: () => fail(), dispose: async () => {} };
}

/**
 * The durable backends to test: SQLite always; Redis and PostgreSQL when their driver file exists
 * and the server answers (PostgreSQL as user `postgres`, else `root`).
 */
export async function durableBackends(env: NodeJS.ProcessEnv = process.env): Promise<DurableBackend[]> {
  const required = env.REQUIRE_INTEGRATION === '1';
  const { POSTGRES_URL, REDIS_URL, probePostgres, probeRedis } = await import('./integration.js');
  const backends: DurableBackend[] = [sqliteBackend()];
  if (existsSync(driverFile('redis'))) {
    const probe = await probeRedis(REDIS_URL);
    if (probe.available) backends.push(redisBackend(REDIS_URL));
    else if (required)
      backends.push(unreachableBackend('redis', `${probe.address} did not answer PING (${probe.reason})`));
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

/** The provider operation id of a call. */
export const opRefOf = (toolCallId: string): string => `op_${toolCallId}`;

/** One line of the fake provider's log: an effect that happened. */
export interface ProviderEffect {
  readonly op: string;
  readonly toolCallId: string;
  readonly pid: number;
  readonly result: ChargeResult;
}

/** The fake provider: append one effect line and fsync it before returning. */
export function appendEffect(log: string, effect: ProviderEffect): void {
  const fd = openSync(log, 'a');
  try {
    writeSync(fd, `${JSON.stringify(effect)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Every effect in the fake provider's log (none when it does not exist). */
export function readEffects(log: string): ProviderEffect[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as ProviderEffect);
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
  /** Wait this long inside the body, before the side effect. */
  readonly bodyDelayMs?: number;
  /** When the body records the external operation: after the provider call (default), before it, or never. */
  readonly recordRef?: 'after-provider' | 'before-provider' | 'never';
  /** A reconciler that looks the operation up in the fake provider's log. */
  readonly reconciler?: 'provider-log';
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
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER, JSON.stringify(config)], {
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
}

/** A {@link WorkerGroup} on `backend`'s store. */
export function createWorkerGroup(backend: DurableBackend): WorkerGroup {
  const children = new Set<ChildProcess>();
  return {
    spawn: (config) => spawnWorker(backend, config, children),
    run: (config) => spawnWorker(backend, config, children).exit,
    kill() {
      for (const child of children) {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
      children.clear();
    },
  };
}

/** A scratch directory for effect logs and start signals. */
export function createScratch(): { file(name: string): string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'hyphae-ledger-scratch-'));
  return { file: (name) => join(dir, name), remove: () => rmSync(dir, { recursive: true, force: true }) };
}
