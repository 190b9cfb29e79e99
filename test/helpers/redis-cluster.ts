/**
 * A Redis Cluster of a test file's own: three masters and one replica each, `redis-server`
 * processes on 127.0.0.1 ports of the file's choosing (no persistence), joined with
 * `redis-cli --cluster create`, stopped by their pids. With `REQUIRE_INTEGRATION=1` a cluster that
 * cannot start fails the file; otherwise its tests are skipped.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { Cluster } from 'ioredis';
import { createClient, createCluster } from 'redis';
import {
  createRedisStorage,
  fromIoredis,
  type RedisClientLike,
  type RedisClusterLike,
  type RedisStorage,
  type RedisStorageSettings,
} from '../../src/storage/redis.js';
import { hasRedisServer } from './own-redis.js';

const run = promisify(execFile);

/** One `redis-server` of the cluster. */
export interface ClusterNode {
  readonly port: number;
  readonly url: string;
  /** The server's pid while it runs. */
  pid(): number;
}

/** A running cluster of our own. */
export interface OwnCluster {
  readonly nodes: readonly ClusterNode[];
  /** The `{ host, port }` list cluster clients start from. */
  readonly startup: readonly { readonly host: string; readonly port: number }[];
  /** Run `redis-cli` against one node. */
  cli(port: number, ...args: string[]): Promise<string>;
  /** The port of the master serving `key`, and of its replica. */
  shardOf(key: string): Promise<{ readonly master: number; readonly replica: number }>;
  /**
   * Wait until every running node reports `cluster_state:ok`, flags no running node failing and names
   * the same masters for the same slots, and every replica's link to its master is up.
   */
  settle(): Promise<void>;
  /** Freeze a node (SIGSTOP) or let it go on (SIGCONT). */
  signal(port: number, signal: 'SIGSTOP' | 'SIGCONT'): void;
  /** Kill a node (SIGKILL); it stays down until {@link restart}. */
  kill(port: number): Promise<void>;
  /** Start a killed node again on its port, empty, with its cluster configuration (it rejoins as a replica). */
  restart(port: number): Promise<void>;
  stop(): Promise<void>;
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(check: () => Promise<boolean>, what: string, attempts = 400): Promise<void> {
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    if (await check().catch(() => false)) return;
    await sleep(50);
  }
  throw new Error(`Own Redis Cluster: ${what}`);
}

/** True when something accepts a TCP connection on 127.0.0.1:`port`. */
export function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** How far apart the blocks of ports tried for one cluster are. */
export const PORT_BLOCK_STEP = 1000;

/**
 * The first block of `count` ports from `basePort`, then `basePort + 1000`, ... (up to five more),
 * on which nothing answers. A server left on the file's ports by an interrupted run (its servers
 * run daemonized) answers their PING and has no pid file of this run; the cluster moves past it.
 */
export async function freePortBlock(basePort: number, count: number): Promise<number[]> {
  for (let shift = 0; shift <= 5 * PORT_BLOCK_STEP; shift += PORT_BLOCK_STEP) {
    const ports = Array.from({ length: count }, (_, i) => basePort + shift + i);
    const answering = await Promise.all(ports.map(portAnswers));
    if (!answering.includes(true)) return ports;
  }
  throw new Error(
    `Own Redis Cluster: every block of ${count} ports from ${basePort} (step ${PORT_BLOCK_STEP}) is in use`,
  );
}

/**
 * Start six servers on `basePort`..`basePort + 5` and join them into three masters with a replica
 * each (or, with `replicas` 0, three masters on `basePort`..`basePort + 2`); when something already
 * answers on one of those ports, on the next free block ({@link freePortBlock}).
 * `cluster-node-timeout` is short (1 s) so a killed master fails over within seconds.
 */
export async function startOwnCluster(basePort: number, replicas: 0 | 1 = 1): Promise<OwnCluster> {
  const ports = await freePortBlock(basePort, replicas === 1 ? 6 : 3);
  const dir = mkdtempSync(join(tmpdir(), 'hyphae-cluster-'));
  const pids = new Map<number, number>();
  const cli = async (port: number, ...args: string[]): Promise<string> =>
    (await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args])).stdout;
  const stop = async (): Promise<void> => {
    for (const pid of pids.values()) if (alive(pid)) process.kill(pid, 'SIGKILL');
    for (const pid of pids.values()) await until(async () => !alive(pid), `pid ${pid} did not stop`);
    rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
  };
  const down = new Set<number>();
  const start = async (port: number): Promise<void> => {
    const pidFile = join(dir, `${port}.pid`);
    const cluster = ['--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`];
    // A killed server leaves its pid file behind; a restart must not read the dead pid from it.
    rmSync(pidFile, { force: true });
    await run('redis-server', [
      ...['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'],
      ...cluster,
      ...['--cluster-node-timeout', '1000', '--daemonize', 'yes', '--pidfile', pidFile],
      ...['--logfile', join(dir, `${port}.log`)],
    ]);
    await until(async () => (await cli(port, 'PING')).trim() === 'PONG', `port ${port} did not answer`);
    // A server that answers without writing this run's pid file is not ours (another took the port).
    await until(async () => existsSync(pidFile), `the server on port ${port} wrote no pid file: it is not this run's`);
    pids.set(port, Number(readFileSync(pidFile, 'utf8').trim()));
  };
  try {
    for (const port of ports) await start(port);
    await run('redis-cli', [
      '--cluster',
      'create',
      ...ports.map((port) => `127.0.0.1:${port}`),
      '--cluster-replicas',
      String(replicas),
      '--cluster-yes',
    ]);
  } catch (error) {
    await stop();
    throw error;
  }
  const portOf = (fields: readonly string[] | undefined): number => Number(fields?.[1]?.split('@')[0]?.split(':')[1]);
  /** `CLUSTER NODES` as one node asks it: the fields of each line. */
  const nodesSeenBy = async (port: number): Promise<string[][]> =>
    (await cli(port, 'CLUSTER', 'NODES'))
      .trim()
      .split('\n')
      .map((line) => line.trim().split(' '));
  /**
   * A node's view of the cluster, as a line per master holding slots (`port:ranges`), or null while
   * it reports the cluster down, holds slots on a node that is down or flags a running node failing.
   */
  const viewOf = async (port: number): Promise<string | null> => {
    if (!(await cli(port, 'CLUSTER', 'INFO')).includes('cluster_state:ok')) return null;
    const nodes = await nodesSeenBy(port);
    const running = (fields: readonly string[]): boolean => !down.has(portOf(fields));
    if (nodes.some((fields) => running(fields) && fields[2]?.includes('fail'))) return null;
    const owners = nodes.filter((fields) => fields[2]?.includes('master') && fields.length > 8);
    if (owners.some((fields) => !running(fields))) return null;
    return owners
      .map((fields) => `${portOf(fields)}:${fields.slice(8).join(',')}`)
      .sort()
      .join(' ');
  };
  const settle = async (): Promise<void> => {
    const live = ports.filter((each) => !down.has(each));
    // Every running node says the cluster is ok and names the same masters for the same slots, twice
    // in a row: a node that has not yet heard of a failover still says ok, with the old owner.
    let agreed = 0;
    await until(
      async () => {
        const views = await Promise.all(live.map(viewOf));
        const same = views[0] !== null && views.every((view) => view === views[0]);
        agreed = same ? agreed + 1 : 0;
        return agreed >= 2;
      },
      'nodes do not agree on the slots',
      1_200,
    );
    for (const port of live) {
      await until(async () => {
        const info = await cli(port, 'INFO', 'replication');
        return info.includes('role:master') || info.includes('master_link_status:up');
      }, `${port} replica not in sync`);
    }
  };
  const cluster: OwnCluster = {
    nodes: ports.map((port) => ({ port, url: `redis://127.0.0.1:${port}`, pid: () => pids.get(port) ?? 0 })),
    startup: ports.map((port) => ({ host: '127.0.0.1', port })),
    cli,
    async shardOf(key) {
      const slot = Number((await cli(ports[0] as number, 'CLUSTER', 'KEYSLOT', key)).trim());
      const nodes = await nodesSeenBy(ports[0] as number);
      const master = nodes.find(
        (fields) =>
          fields[2]?.includes('master') &&
          fields.slice(8).some((range) => {
            const [low = -1, high = low] = range.split('-').map(Number);
            return slot >= low && slot <= high;
          }),
      );
      const replica = nodes.find((fields) => fields[3] === master?.[0]);
      return { master: portOf(master), replica: portOf(replica) };
    },
    settle,
    signal(port, signal) {
      process.kill(pids.get(port) ?? 0, signal);
    },
    async kill(port) {
      const pid = pids.get(port) ?? 0;
      process.kill(pid, 'SIGKILL');
      await until(async () => !alive(pid), `pid ${pid} did not stop`);
      down.add(port);
    },
    async restart(port) {
      await start(port);
      down.delete(port);
    },
    stop,
  };
  await settle().catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return cluster;
}

/**
 * The cluster for a test file, or null (skip) when `redis-server` is not installed and
 * `REQUIRE_INTEGRATION` is not set; with it set, a cluster that cannot start throws.
 */
export async function ownClusterOrSkip(basePort: number): Promise<OwnCluster | null> {
  const required = process.env.REQUIRE_INTEGRATION === '1';
  if (!(await hasRedisServer())) {
    if (required) throw new Error('REQUIRE_INTEGRATION=1 and `redis-server` is not installed: no Redis Cluster');
    return null;
  }
  return startOwnCluster(basePort);
}

/** The cluster client library a test runs the driver over. */
export type ClusterClientKind = 'node-redis' | 'ioredis';

/** A cluster client of either library on `cluster`, connected; `close()` ends it. */
export async function clusterClient(
  cluster: OwnCluster,
  kind: ClusterClientKind,
): Promise<{ readonly client: RedisClientLike | RedisClusterLike; close(): Promise<void> }> {
  if (kind === 'node-redis') {
    const client = createCluster({
      rootNodes: cluster.nodes.map((node) => ({ url: node.url })),
      defaults: {
        socket: { connectTimeout: 2000, reconnectStrategy: (retries: number) => Math.min(50 * retries, 500) },
      },
    });
    client.on('error', () => {});
    await client.connect();
    return { client, close: () => client.close().catch(() => client.destroy()) };
  }
  const client = new Cluster([...cluster.startup], { redisOptions: { maxRetriesPerRequest: 1 } });
  client.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    client.once('ready', () => resolve());
    client.once('end', () => reject(new Error('ioredis cluster ended before it was ready')));
  });
  return {
    client: fromIoredis(client),
    close: async () => {
      client.disconnect();
    },
  };
}

/** A storage on `cluster` over a client of its own, which its `close()` also ends. */
export async function openClusterStorage(
  cluster: OwnCluster,
  kind: ClusterClientKind,
  settings: RedisStorageSettings,
): Promise<RedisStorage> {
  const { client, close } = await clusterClient(cluster, kind);
  const storage = createRedisStorage({ client }, settings);
  return {
    ...storage,
    async close() {
      await storage.close();
      await close();
    },
  };
}

/** Delete every key under `prefix` on every master (SCAN on each; none of the driver's paths scan). */
export async function deleteClusterKeys(cluster: OwnCluster, prefix: string): Promise<void> {
  for (const node of cluster.nodes) {
    const client = createClient({ url: node.url });
    client.on('error', () => {});
    await client.connect();
    try {
      const role = (await client.sendCommand(['ROLE'])) as unknown[];
      if (String(role[0]) !== 'master') continue;
      for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) {
        for (const key of keys) await client.unlink(key);
      }
    } finally {
      await client.close();
    }
  }
}
