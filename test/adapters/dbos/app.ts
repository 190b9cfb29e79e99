/**
 * The DBOS app of test/fixtures/dbos-app.ts as child processes, on a database of each test's own.
 */
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { AppCommand } from '../../fixtures/dbos-app.js';
import { POSTGRES_URL } from '../../helpers/integration.js';

const APP = fileURLToPath(new URL('../../fixtures/dbos-app.ts', import.meta.url));
const TSX = new URL('../../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;

/** How a workflow run by the app ended, as the child reported it. */
export type Settled =
  | { readonly ok: true; readonly value: unknown }
  | {
      readonly ok: false;
      readonly error: { readonly name: string; readonly message: string; readonly code: string | null };
    };

/** What one child did: the charges its step bodies made, and how its workflow ended (none when killed). */
export interface AppRun {
  readonly charged: number;
  readonly settled: Settled | null;
  readonly killed: boolean;
}

/** A database of one test's own on the test server: its URL, and `drop()` to remove it. */
export interface AppDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

async function onServer<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const server = new pg.Client({ connectionString: POSTGRES_URL });
  await server.connect();
  try {
    return await fn(server);
  } finally {
    await server.end();
  }
}

/** Create an empty database for one test. */
export async function createAppDatabase(): Promise<AppDatabase> {
  const name = `hyphae_dbos_${randomBytes(5).toString('hex')}`;
  await onServer((server) => server.query(`CREATE DATABASE ${name}`));
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () =>
      onServer((server) => server.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/**
 * Run the app once. With `killAfterCharge` the child is SIGKILLed as soon as a step body reports
 * its charge (the step has not returned, so DBOS has journaled nothing).
 */
export function runApp(command: AppCommand, options: { readonly killAfterCharge?: boolean } = {}): Promise<AppRun> {
  const child = fork(APP, [JSON.stringify(command)], {
    execArgv: ['--import', TSX],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  let charged = 0;
  let settled: Settled | null = null;
  let failure: string | null = null;
  let killed = false;
  child.on('message', (message: { type: string } & Record<string, unknown>) => {
    if (message.type === 'charged') {
      charged++;
      if (options.killAfterCharge === true) {
        killed = true;
        child.kill('SIGKILL');
      }
    } else if (message.type === 'settled') {
      settled = message as unknown as Settled;
    } else if (message.type === 'failed') {
      failure = JSON.stringify(message.error);
    }
  });
  return new Promise<AppRun>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (failure !== null || (!killed && code !== 0)) {
        reject(new Error(`The DBOS app exited (${code ?? signal}): ${failure ?? ''}\n${stderr}`));
        return;
      }
      resolve({ charged, settled, killed });
    });
  });
}

/** The charge rows in the app's database (the provider's ground truth). */
export async function chargesIn(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM charges');
    return Number(rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}
