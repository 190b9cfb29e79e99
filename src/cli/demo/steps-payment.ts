/**
 * Demo steps 3 and 4: a payment whose process is killed inside `sideEffect`, then reconciled.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createLedger } from '../../ledger/create-ledger.js';
import type { Reconciler } from '../../ledger/types.js';
import type { DemoContext, StepReport } from './demo-context.js';
import { openFakeGateway } from './fake-gateway.js';
import { backendArgs, openDemoStorage } from './open-storage.js';
import { PAYMENT_CALL, paymentTool } from './payment-tool.js';

function runChild(ctx: DemoContext): Promise<NodeJS.Signals | null> {
  // The child is this file's sibling with the same extension, run with the same loader flags.
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  const child = fileURLToPath(new URL(`./demo-child${ext}`, import.meta.url));
  return new Promise((resolve, reject) => {
    const proc = spawn(
      process.execPath,
      [
        ...process.execArgv,
        child,
        ...backendArgs(ctx.backend),
        JSON.stringify(ctx.scope),
        ctx.gatewayPath,
        String(ctx.leaseTtlMs),
      ],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    proc.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    proc.on('error', reject);
    proc.on('exit', (code, signal) => {
      if (signal === null && code !== 0) reject(new Error(`Demo child exited with code ${code}: ${stderr.trim()}`));
      else resolve(signal);
    });
  });
}

/** A fresh process's ledger over the same file: what a redispatching worker would have. */
async function workerLedger(ctx: DemoContext) {
  return createLedger({
    storage: await openDemoStorage(ctx.backend),
    agentId: 'demo-agent',
    policyVersion: 'demo-1',
    leaseTtlMs: ctx.leaseTtlMs,
    pollIntervalMs: 50,
  });
}

/** Step 3: the redispatch polls until the dead worker's lease expires, then hard-blocks. */
export async function crashInsideSideEffect(ctx: DemoContext): Promise<StepReport> {
  const signal = await runChild(ctx);
  const gateway = openFakeGateway(ctx.gatewayPath);
  const ledger = await workerLedger(ctx);
  let runs = 0;
  const pay = paymentTool(ledger, gateway, { onRun: () => runs++ });
  let blocked: { code: string; message: string } | null = null;
  try {
    await pay(PAYMENT_CALL.args, { toolCallId: PAYMENT_CALL.toolCallId, scope: ctx.scope });
  } catch (error) {
    blocked = error as { code: string; message: string };
  } finally {
    await ledger.close();
  }
  const message = blocked?.message ?? '';
  const pass =
    signal === 'SIGKILL' &&
    blocked?.code === 'ledger_hard_block' &&
    message.includes('outcome `EXPIRED`') &&
    message.includes('pi_order-42') &&
    runs === 0 &&
    gateway.count() === 0;
  return {
    pass,
    lines: [
      `child process killed by ${signal ?? 'nothing'} inside sideEffect, after recording ref pi_order-42`,
      `redispatch: ${blocked === null ? 'RAN (wrong)' : `${blocked.code}`}`,
      `  ${message}`,
      `executions after the crash: ${runs}, gateway charges: ${gateway.count()} (expected 0 and 0)`,
    ],
  };
}

/** Step 4: a reconciler asks the gateway, proves NOT_EXECUTED, and the payment runs once more. */
export async function reconcileNotExecuted(ctx: DemoContext): Promise<StepReport> {
  const gateway = openFakeGateway(ctx.gatewayPath);
  const verdicts: string[] = [];
  const reconciler: Reconciler = ({ externalOperationRef }) => {
    const charge = gateway.find(externalOperationRef);
    const verdict =
      charge === undefined ? { status: 'NOT_EXECUTED' as const } : { status: 'COMPLETED' as const, result: charge };
    verdicts.push(verdict.status);
    return verdict;
  };
  const ledger = await workerLedger(ctx);
  let runs = 0;
  const pay = paymentTool(ledger, gateway, { onRun: () => runs++, reconciler });
  try {
    const call = { toolCallId: PAYMENT_CALL.toolCallId, scope: ctx.scope };
    const first = await pay(PAYMENT_CALL.args, call);
    const again = await pay(PAYMENT_CALL.args, call);
    return {
      pass: runs === 1 && gateway.count() === 1 && verdicts.join() === 'NOT_EXECUTED' && again.ref === first.ref,
      lines: [
        `reconciler verdicts: ${verdicts.join(', ')}`,
        `executions: ${runs}, gateway charges: ${gateway.count()} (expected 1 and 1)`,
        `a third dispatch returned the stored charge ${first.ref} without running`,
      ],
    };
  } finally {
    await ledger.close();
  }
}
