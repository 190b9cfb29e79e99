/**
 * The Workflow DevKit app of fixture/: built with the `workflow` CLI (standalone target) into a temp
 * folder, hosted by host.ts in a child process on the local world, its data, charges and ledger in
 * that folder.
 */
import { fork } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildWorkflowApp } from '../../helpers/workflow-build.js';
import type { HostCommand } from './host.js';

const FIXTURE = fileURLToPath(new URL('./fixture/', import.meta.url));
const HOST = fileURLToPath(new URL('./host.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const TSX = new URL('../../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;
/** How long one host may run. */
const HOST_LIMIT_MS = 150_000;

/** A built app in a temp folder of its own. */
export interface BuiltApp {
  readonly dir: string;
  /** The id of the `chargeOrder` workflow in the build's manifest. */
  readonly workflowId: string;
  /** The id of the `agentOrder` workflow (a model turn whose tool charges). */
  readonly agentWorkflowId: string;
  readonly chargesFile: string;
  readonly ledgerPath: string;
  remove(): void;
}

/** Copy fixture/ into a temp folder (its imports of the repository pointed at this checkout) and build it. */
export function buildApp(): BuiltApp {
  const build = buildWorkflowApp(FIXTURE, 'hyphae-workflow-', (text) =>
    text.replaceAll("'../../../../../", `'${ROOT}`),
  );
  try {
    return {
      dir: build.dir,
      workflowId: build.idOf('chargeOrder'),
      agentWorkflowId: build.idOf('agentOrder'),
      chargesFile: join(build.dir, 'charges.jsonl'),
      ledgerPath: join(build.dir, 'ledger.db'),
      remove: build.remove,
    };
  } catch (error) {
    build.remove();
    throw error;
  }
}

/** How a run ended, as the host reported it. */
export type Settled =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: { readonly name: string; readonly message: string } };

/** What one host process did: the run it started, the charges its steps made, how the run ended (none when killed). */
export interface HostRun {
  readonly runId: string | null;
  readonly charged: number;
  readonly settled: Settled | null;
  readonly killed: boolean;
}

/** How the app's steps behave (see fixture/workflows/*.ts). */
export interface AppSettings {
  readonly guarded: boolean;
  /** What `chargeOrder`'s step does after its charge (`agentOrder` fails its first turn either way). */
  readonly afterCharge: 'hang' | 'throw' | 'return';
  readonly keyed?: boolean;
  /** The workflow a `start` runs: `charge` (`chargeOrder`, the default) or `agent` (`agentOrder`). */
  readonly workflow?: 'charge' | 'agent';
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/**
 * Host the app once. With `killAfterCharge` the host is SIGKILLed as soon as a step reports its
 * charge (the step has not returned, so the engine has recorded nothing of it).
 */
/** The ledger owner id of the app's host, the same in every process that hosts it. */
export const LEDGER_OWNER_ID = 'workflow-app-host';

export async function runHost(
  app: BuiltApp,
  command: Pick<HostCommand, 'action' | 'runId'>,
  settings: AppSettings,
  options: { readonly killAfterCharge?: boolean } = {},
): Promise<HostRun> {
  const port = await freePort();
  const workflowId = settings.workflow === 'agent' ? app.agentWorkflowId : app.workflowId;
  const child = fork(HOST, [JSON.stringify({ ...command, buildDir: app.dir, workflowId, port })], {
    cwd: app.dir,
    execArgv: ['--import', TSX],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    env: {
      ...process.env,
      PORT: String(port),
      WORKFLOW_LOCAL_BASE_URL: `http://127.0.0.1:${port}`,
      WORKFLOW_LOCAL_DATA_DIR: join(app.dir, '.workflow-data'),
      WORKFLOW_TELEMETRY_DISABLED: '1',
      CHARGES_FILE: app.chargesFile,
      LEDGER_PATH: app.ledgerPath,
      LEDGER_OWNER_ID: LEDGER_OWNER_ID,
      GUARDED: settings.guarded ? '1' : '0',
      AFTER_CHARGE: settings.afterCharge,
      KEYED: settings.keyed === true ? '1' : '0',
    },
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  let runId: string | null = command.runId ?? null;
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
    } else if (message.type === 'started') {
      runId = message.runId as string;
    } else if (message.type === 'settled') {
      settled = message as unknown as Settled;
    } else if (message.type === 'failed') {
      failure = String(message.error);
    }
  });
  return new Promise<HostRun>((resolve, reject) => {
    // A host that never ends (a run that never settles) is killed, so no child outlives its test.
    const limit = setTimeout(() => {
      failure ??= `no end after ${HOST_LIMIT_MS} ms`;
      child.kill('SIGKILL');
    }, HOST_LIMIT_MS);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      clearTimeout(limit);
      if (failure !== null || (!killed && code !== 0)) {
        reject(new Error(`The Workflow host exited (${code ?? signal}): ${failure ?? ''}\n${stderr}`));
        return;
      }
      resolve({ runId, charged, settled, killed });
    });
  });
}

/** One charge line: the order, the idempotency key the step sent (null when stock), the step's attempt. */
export interface ChargeLine {
  readonly orderId: string;
  readonly idempotencyKey: string | null;
  readonly attempt: number;
}

/** The charge lines the app's steps wrote, in order (the provider's ground truth). */
export function chargeLinesOf(app: BuiltApp): ChargeLine[] {
  if (!existsSync(app.chargesFile)) return [];
  const lines = readFileSync(app.chargesFile, 'utf8').trim().split('\n').filter(Boolean);
  return lines.map((line) => JSON.parse(line) as ChargeLine);
}

/** The charge lines the app's steps wrote (the provider's ground truth). */
export function chargesOf(app: BuiltApp): number {
  return chargeLinesOf(app).length;
}
