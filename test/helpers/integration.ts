/**
 * Whether the integration servers answer, and what a test file does when one does not: skip, or
 * fail when `REQUIRE_INTEGRATION=1` (CI), so a missing server never passes silently there.
 */
import { createConnection } from 'node:net';
import pg from 'pg';
import type { TransitionRecord } from '../../src/records/transition-record.js';
import type { LedgerStorage, ListPage, ListQuery } from '../../src/storage/ledger-storage.js';

/** The Redis server the integration tests use. */
export const REDIS_URL: string = process.env.HYPHAE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** The PostgreSQL database the integration tests use. */
export const POSTGRES_URL: string = process.env.HYPHAE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const PROBE_TIMEOUT_MS = 2000;

/** Whether a server answered, and if not, why. */
export interface ServerProbe {
  readonly server: string;
  readonly address: string;
  readonly available: boolean;
  readonly reason: string | null;
}

/** Send PING over a raw socket and wait for `+PONG`. */
export function probeRedis(url: string = REDIS_URL, timeoutMs: number = PROBE_TIMEOUT_MS): Promise<ServerProbe> {
  const { hostname, port } = new URL(url);
  const address = `${hostname}:${port || '6379'}`;
  return new Promise((resolve) => {
    const socket = createConnection({ host: hostname, port: Number(port || 6379) });
    let reply = '';
    const finish = (reason: string | null): void => {
      socket.destroy();
      clearTimeout(timer);
      resolve({ server: 'Redis', address, available: reason === null, reason });
    };
    const timer = setTimeout(() => finish(`no answer within ${timeoutMs} ms`), timeoutMs);
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('utf8');
      if (reply.includes('\r\n')) finish(reply.startsWith('+PONG') ? null : `unexpected reply \`${reply.trim()}\``);
    });
    socket.on('error', (error) => finish(error.message));
  });
}

/** Connect and run `select 1`. */
export async function probePostgres(
  connectionString: string = POSTGRES_URL,
  timeoutMs: number = PROBE_TIMEOUT_MS,
): Promise<ServerProbe> {
  const { hostname, port } = new URL(connectionString);
  const address = `${hostname}:${port || '5432'}`;
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('select 1');
    return { server: 'PostgreSQL', address, available: true, reason: null };
  } catch (error) {
    return { server: 'PostgreSQL', address, available: false, reason: (error as Error).message };
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * The `describe.skipIf` flag for a probed server: true (skip) when it did not answer, unless
 * `REQUIRE_INTEGRATION=1`, in which case it throws so the test file fails, naming the server.
 *
 * @example
 * const skip = integrationSkip(await probeRedis());
 * describe.skipIf(skip)('redis storage', () => { ... });
 */
export function integrationSkip(probe: ServerProbe, env: NodeJS.ProcessEnv = process.env): boolean {
  if (probe.available) return false;
  if (env.REQUIRE_INTEGRATION === '1') {
    throw new Error(
      `${probe.server} at \`${probe.address}\` did not answer (${probe.reason ?? 'unknown reason'}) and REQUIRE_INTEGRATION=1 requires it`,
    );
  }
  return true;
}

/** Follow `nextCursor` to the end; returns the keys in order and the size of every page. */
export async function listAll(
  storage: LedgerStorage,
  query: ListQuery,
): Promise<{ readonly keys: string[]; readonly pageSizes: number[] }> {
  const keys: string[] = [];
  const pageSizes: number[] = [];
  let cursor: string | null = null;
  do {
    const page: ListPage = await storage.list(cursor === null ? query : { ...query, cursor });
    keys.push(...page.records.map((record) => record.key));
    pageSizes.push(page.records.length);
    cursor = page.nextCursor;
  } while (cursor !== null && pageSizes.length < 100_000);
  return { keys, pageSizes };
}

/** The keys of `records` in list order: newest update first, then key descending. */
export function inListOrder(records: readonly TransitionRecord[]): string[] {
  return [...records]
    .sort((a, b) => b.updatedAt - a.updatedAt || (a.key < b.key ? 1 : a.key > b.key ? -1 : 0))
    .map((record) => record.key);
}
