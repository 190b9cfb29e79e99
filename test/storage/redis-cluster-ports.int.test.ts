/**
 * The Redis Cluster a test file starts for itself moves past ports something already answers on (a
 * server left daemonized by an interrupted run), instead of taking that server for its own.
 */
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { hasRedisServer } from '../helpers/own-redis.js';
import { freePortBlock, PORT_BLOCK_STEP, portAnswers, startOwnCluster } from '../helpers/redis-cluster.js';

const BASE_PORT = 7191;

let blocker: Server | null = null;

async function occupy(port: number): Promise<void> {
  // It accepts and holds connections, as a server left on the port would; a probe that hangs up is no error.
  const server = createServer((socket) => socket.on('error', () => {}));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  blocker = server;
}

afterEach(async () => {
  const server = blocker;
  blocker = null;
  if (server !== null) await new Promise((resolve) => server.close(resolve));
});

describe('the ports of a cluster of our own', () => {
  it('takes the first block on which nothing answers', async () => {
    expect(await freePortBlock(BASE_PORT, 3)).toEqual([BASE_PORT, BASE_PORT + 1, BASE_PORT + 2]);

    await occupy(BASE_PORT + 1);

    expect(await portAnswers(BASE_PORT + 1)).toBe(true);
    const next = BASE_PORT + PORT_BLOCK_STEP;
    expect(await freePortBlock(BASE_PORT, 3)).toEqual([next, next + 1, next + 2]);
  });

  it('starts its servers past a port another server holds, and stops only its own', async () => {
    if (!(await hasRedisServer())) {
      expect(process.env.REQUIRE_INTEGRATION).not.toBe('1');
      return;
    }
    await occupy(BASE_PORT);

    const cluster = await startOwnCluster(BASE_PORT, 0);
    try {
      expect(cluster.nodes.map((node) => node.port)).toEqual([1, 2, 3].map((i) => BASE_PORT + PORT_BLOCK_STEP + i - 1));
      expect((await cluster.cli(cluster.nodes[0]?.port ?? 0, 'PING')).trim()).toBe('PONG');
    } finally {
      await cluster.stop();
    }
    expect(await portAnswers(BASE_PORT)).toBe(true);
    expect(await portAnswers(BASE_PORT + PORT_BLOCK_STEP)).toBe(false);
  }, 60_000);
});
