/**
 * A plain `node:http` server hosting the `workflow build` output of fixture/ (the standalone
 * target's `.well-known/workflow/v1/{flow,step}.js`, each exporting `POST(Request)`) on the local
 * world. Started as a child process by app.ts; reports over IPC:
 *
 *   { type: 'charged' }                      a step body charged (sent by the step itself)
 *   { type: 'started', runId }               a run was started
 *   { type: 'settled', ok, value|error }     the run ended
 *
 * Argument: the JSON of {@link HostCommand}.
 */
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { getRun, start } from 'workflow/api';
import { getWorld } from 'workflow/runtime';
import { createLedger } from '../../../src/index.js';
import { createSqliteStorage } from '../../../src/storage/sqlite.js';

/** What the host does once it listens. */
export interface HostCommand {
  /** The folder `workflow build` ran in. */
  readonly buildDir: string;
  /** `start` a run of `workflowId` for order `ord_1`; `recover` the world's unfinished runs and await `runId`. */
  readonly action: 'start' | 'recover';
  readonly workflowId?: string;
  readonly runId?: string;
  readonly port: number;
}

type Handler = (request: Request) => Promise<Response>;

const command = JSON.parse(process.argv[2] ?? '{}') as HostCommand;
const send = (message: unknown): void => {
  process.send?.(message);
};
const require = createRequire(import.meta.url);
const bundle = (name: string): Handler =>
  (require(join(command.buildDir, '.well-known/workflow/v1', name)) as { POST: Handler }).POST;
const routes = new Map<string, Handler>([
  ['/.well-known/workflow/v1/flow', bundle('flow.js')],
  ['/.well-known/workflow/v1/step', bundle('step.js')],
]);

const server = createServer(async (req, res) => {
  const url = new URL(req.url ?? '/', `http://localhost:${command.port}`);
  const handler = routes.get(url.pathname);
  if (handler === undefined || req.method !== 'POST') {
    res.writeHead(404).end();
    return;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
  const response = await handler(new Request(url, { method: 'POST', headers, body: Buffer.concat(chunks) }));
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
});

async function settle(runId: string): Promise<void> {
  try {
    send({ type: 'settled', ok: true, value: await getRun(runId).returnValue });
  } catch (error) {
    send({ type: 'settled', ok: false, error: { name: (error as Error).name, message: (error as Error).message } });
  }
}

async function main(): Promise<void> {
  await new Promise<void>((resolve) => server.listen(command.port, '127.0.0.1', resolve));
  if (command.action === 'start') {
    const run = await start({ workflowId: command.workflowId ?? '' } as never, ['ord_1']);
    send({ type: 'started', runId: run.runId });
    await settle(run.runId);
  } else {
    // The host's earlier process is gone: say so to the ledger before the world re-enqueues its runs.
    const ledger = createLedger({
      storage: createSqliteStorage({ path: process.env.LEDGER_PATH ?? '' }),
      agentId: 'workflow-app',
      policyVersion: 'workflow-app.1',
    });
    await ledger.markWorkerDead(
      { owner: process.env.LEDGER_OWNER_ID ?? '' },
      { by: 'host', reason: 'the host restarted', overrideHeartbeat: true },
    );
    await ledger.close();
    await getWorld().start?.();
    await settle(command.runId ?? '');
  }
  server.close();
  server.closeAllConnections();
  process.exit(0);
}

main().catch((error: unknown) => {
  send({ type: 'failed', error: String((error as Error)?.stack ?? error) });
  process.exit(1);
});
