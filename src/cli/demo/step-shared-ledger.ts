/**
 * Demo on a shared Redis or PostgreSQL ledger: two worker processes dispatch the same call.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { DemoContext, StepReport } from './demo-context.js';
import { backendArgs, type DemoBackend } from './open-storage.js';

/** What a worker process printed. */
export interface WorkerReport {
  readonly ok: boolean;
  readonly ran: boolean;
  readonly result?: unknown;
  readonly code?: string;
  readonly message?: string;
}

function runWorker(backend: DemoBackend, scopeJson: string, toolCallId: string, name: string): Promise<WorkerReport> {
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  const worker = fileURLToPath(new URL(`./demo-worker${ext}`, import.meta.url));
  return new Promise((resolve, reject) => {
    const proc = spawn(
      process.execPath,
      [...process.execArgv, worker, ...backendArgs(backend), scopeJson, toolCallId, name],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    proc.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    proc.on('error', reject);
    proc.on('exit', (code) => {
      const line = stdout.trim().split('\n').at(-1);
      if (code !== 0 || line === undefined || line === '') {
        reject(new Error(`Worker ${name} exited with code ${code}: ${stderr.trim()}`));
        return;
      }
      resolve(JSON.parse(line) as WorkerReport);
    });
  });
}

/** Two processes, one transition: one executes, the other polls and returns the same result. */
export async function sharedLedgerWorkers(ctx: DemoContext): Promise<StepReport> {
  const { backend } = ctx;
  const scopeJson = JSON.stringify(ctx.scope);
  const toolCallId = 'call_shared_1';
  const [a, b] = await Promise.all([
    runWorker(backend, scopeJson, toolCallId, 'worker-a'),
    runWorker(backend, scopeJson, toolCallId, 'worker-b'),
  ]);
  const executions = Number(a.ran) + Number(b.ran);
  const same = a.ok && b.ok && JSON.stringify(a.result) === JSON.stringify(b.result);
  return {
    pass: executions === 1 && same,
    lines: [
      `two worker processes dispatched ${toolCallId} on the shared ${backend.kind} ledger`,
      describeWorker('worker-a', a),
      describeWorker('worker-b', b),
      `executions: ${executions} (expected 1); same result: ${same ? 'yes' : 'no'}`,
    ],
  };
}

/** What one worker did: executed or polled when it got a result, failed (with the error) otherwise. */
export function describeWorker(name: string, r: WorkerReport): string {
  if (!r.ok) return `${name}: failed${r.ran ? ' after executing' : ''} → ${r.code ?? 'error'}: ${r.message ?? ''}`;
  return `${name}: ${r.ran ? 'executed' : 'polled'} → ${JSON.stringify(r.result)}`;
}
