/**
 * The Workflow DevKit app of the durable bench: workflow-app/ built with the `workflow` CLI
 * (standalone target) into a temp folder, as test/adapters/workflow/app.ts builds the tests' app,
 * and hosted in this process by a plain `node:http` server on the local world (as
 * test/adapters/workflow/host.ts does in a child), so a run is timed from `start()` to its result.
 */
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type BetterSqlite3 from 'better-sqlite3';
import { buildWorkflowApp } from '../../test/helpers/workflow-build.js';
import type { StorageCalls } from '../lib/counting-storage.js';

const APP = fileURLToPath(new URL('./workflow-app/', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const require = createRequire(import.meta.url);

/** The app's workflows (workflow-app/workflows/charge.ts). */
export const WORKFLOWS = ['stockCharge', 'guardedCharge', 'leanCharge', 'walCharge'] as const;
export type WorkflowName = (typeof WORKFLOWS)[number];

/** A built app in a temp folder of its own: the build, the local world's data and both SQLite files. */
export interface BuiltApp {
  readonly dir: string;
  readonly workflowIds: Readonly<Record<WorkflowName, string>>;
  /** The step's table (`charges`), created by {@link buildApp}. */
  readonly chargesDb: string;
  /** The ledger's file, created by the first guarded step. */
  readonly ledgerDb: string;
  /** The tuned case's ledger file (WAL mode). */
  readonly ledgerWalDb: string;
  remove(): void;
}

/** Copy workflow-app/ into a temp folder (its relative imports made absolute) and build it. */
export function buildApp(): BuiltApp {
  const build = buildWorkflowApp(APP, 'hyphae-workflow-bench-', (text) =>
    text
      .replaceAll("'../../../../src/", `'${join(ROOT, 'src')}/`)
      .replaceAll("'../../../lib/", `'${join(ROOT, 'bench/lib')}/`),
  );
  try {
    const chargesDb = join(build.dir, 'charges.db');
    const Database = require('better-sqlite3') as typeof BetterSqlite3;
    const db = new Database(chargesDb);
    db.exec('CREATE TABLE charges (id INTEGER PRIMARY KEY, order_id TEXT, cents INTEGER, idempotency_key TEXT)');
    db.close();
    return {
      dir: build.dir,
      workflowIds: Object.fromEntries(WORKFLOWS.map((name) => [name, build.idOf(name)])) as Record<
        WorkflowName,
        string
      >,
      chargesDb,
      ledgerDb: join(build.dir, 'ledger.db'),
      ledgerWalDb: join(build.dir, 'ledger-wal.db'),
      remove: build.remove,
    };
  } catch (error) {
    build.remove();
    throw error;
  }
}

/** What the app's steps leave on `globalThis` (workflow-app/workflows/charge.ts). */
const CALLS = Symbol.for('hyphae.bench.workflow.storageCalls');
const STEP_TIMES = Symbol.for('hyphae.bench.workflow.stepTimes');

type Handler = (request: Request) => Promise<Response>;
type RunStatus = 'pending' | 'running' | 'completed' | 'failed' | 'cancelled';

/** The app served in this process. */
export interface HostedApp {
  /** Start a run of `name` and resolve with its result once the flow invocation that ended it returns. */
  run(name: WorkflowName, args: readonly unknown[]): Promise<unknown>;
  /** The storage calls made so far by the ledger on `path` (null before its first step). */
  storageCalls(path: string): StorageCalls | null;
  /** The µs each step's function took so far, by step (`stock`, `guarded`, `lean`, `wal`). */
  stepTimes(): Readonly<Record<string, readonly number[]>>;
  close(): Promise<void>;
}

/**
 * Host `app` on the local world in this process (one per process: the world is a singleton read
 * from the environment). `getRun(id).returnValue` polls the world once a second, so a run's end is
 * observed where it happens instead: after each invocation of the flow route, every waiting run's
 * status is read once (the same read for every case).
 */
export async function hostApp(app: BuiltApp): Promise<HostedApp> {
  const waiting = new Map<string, () => void>();
  let server: Server | undefined;
  const bundle = (name: string): Handler =>
    (require(join(app.dir, '.well-known/workflow/v1', name)) as { POST: Handler }).POST;
  const afterFlow = async (): Promise<void> => {
    for (const [runId, wake] of waiting) {
      const run = (await world().runs.get(runId)) as { status: RunStatus };
      if (run.status !== 'pending' && run.status !== 'running') wake();
    }
  };
  const routes = new Map<string, { handler: Handler; after?: () => Promise<void> }>([
    ['/.well-known/workflow/v1/flow', { handler: bundle('flow.js'), after: afterFlow }],
    ['/.well-known/workflow/v1/step', { handler: bundle('step.js') }],
  ]);
  server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const route = routes.get(url.pathname);
    if (route === undefined || req.method !== 'POST') {
      res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
    const response = await route.handler(new Request(url, { method: 'POST', headers, body: Buffer.concat(chunks) }));
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
    await route.after?.();
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  Object.assign(process.env, {
    PORT: String(port),
    WORKFLOW_LOCAL_BASE_URL: `http://127.0.0.1:${port}`,
    WORKFLOW_LOCAL_DATA_DIR: join(app.dir, '.workflow-data'),
    WORKFLOW_TELEMETRY_DISABLED: '1',
    CHARGES_DB: app.chargesDb,
    LEDGER_DB: app.ledgerDb,
    LEDGER_WAL_DB: app.ledgerWalDb,
  });
  // Loaded after the environment is set: the local world reads it when first used.
  const api = await import('workflow/api');
  const runtime = await import('workflow/runtime');
  const world = (): { runs: { get(id: string): Promise<unknown> } } =>
    runtime.getWorld() as unknown as { runs: { get(id: string): Promise<unknown> } };
  const shared = globalThis as {
    [CALLS]?: Record<string, StorageCalls>;
    [STEP_TIMES]?: Record<string, number[]>;
  };
  return {
    async run(name, args) {
      const started = await api.start({ workflowId: app.workflowIds[name] } as never, [...args]);
      const ended = new Promise<void>((resolve) => waiting.set(started.runId, resolve));
      // A run that ended before its waiter was set is seen here.
      const run = (await world().runs.get(started.runId)) as { status: RunStatus };
      if (run.status === 'pending' || run.status === 'running') await ended;
      waiting.delete(started.runId);
      return api.getRun(started.runId).returnValue;
    },
    storageCalls: (path) => shared[CALLS]?.[path] ?? null,
    stepTimes: () => shared[STEP_TIMES] ?? {},
    async close() {
      server?.closeAllConnections();
      await new Promise<void>((resolve) => server?.close(() => resolve()));
    },
  };
}
