/**
 * A Redis server of a test file's own (`redis-server` on a free port, no persistence), for the
 * tests that reconfigure, restart or empty a server: the shared one is never touched. Stopped by
 * its pid.
 */
import { execFile } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { probeRedis } from './integration.js';

const run = promisify(execFile);

/** A running server of our own. */
export interface OwnRedis {
  readonly url: string;
  readonly port: number;
  /** Stop the server and start an empty one on the same port (no persistence: everything is lost). */
  restartEmpty(): Promise<void>;
  /** Freeze the server (SIGSTOP) and let it go on (SIGCONT) after `ms`; resolves once it is frozen. */
  pause(ms: number): Promise<void>;
  stop(): Promise<void>;
}

/** True when `redis-server` can be run here. */
export async function hasRedisServer(): Promise<boolean> {
  try {
    await run('redis-server', ['--version']);
    return true;
  } catch {
    return false;
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject()));
    });
  });
}

async function waitFor(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    if (await check()) return;
    await sleep(25);
  }
  throw new Error(`Own Redis server: ${what}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Start `redis-server` with `args` (directives such as `['--maxmemory-policy', 'allkeys-lru']`). */
export async function startOwnRedis(args: readonly string[] = []): Promise<OwnRedis> {
  const port = await freePort();
  const pidFile = join(tmpdir(), `hyphae-own-redis-${process.pid}-${port}.pid`);
  const url = `redis://127.0.0.1:${port}`;
  let pid = 0;
  async function start(): Promise<void> {
    await rm(pidFile, { force: true });
    const base = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
    await run('redis-server', [...base, ...args, '--daemonize', 'yes', '--pidfile', pidFile]);
    await waitFor(async () => (await probeRedis(url, 500)).available, 'did not answer');
    pid = Number((await readFile(pidFile, 'utf8')).trim());
  }
  async function stop(): Promise<void> {
    if (pid === 0 || !alive(pid)) return;
    process.kill(pid, 'SIGKILL');
    const stopped = pid;
    await waitFor(async () => !alive(stopped), 'did not stop');
    pid = 0;
  }
  await start();
  return {
    url,
    port,
    async restartEmpty() {
      await stop();
      await start();
    },
    async pause(ms) {
      const paused = pid;
      process.kill(paused, 'SIGSTOP');
      setTimeout(() => {
        if (alive(paused)) process.kill(paused, 'SIGCONT');
      }, ms).unref();
    },
    async stop() {
      await stop();
      await rm(pidFile, { force: true });
    },
  };
}
