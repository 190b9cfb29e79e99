/**
 * The synthetic provider and tool of `hyphae verify`: a configured tool's envelope (class, retry
 * permission, spendability, provider key, identity) around a body that performs one countable
 * effect — a line appended to a log shared by every process of the run — and never the user's code.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { pickDefined } from '../../config/defined.js';
import type { StoreSettings, ToolSettings } from '../../config/types.js';
import { sideEffect } from '../../ledger/boundary-markers.js';
import { createLedger } from '../../ledger/create-ledger.js';
import type { LedgeredFunction, ToolSpec } from '../../ledger/types.js';
import type { LedgerScope } from '../../records/transition-record.js';
import type { LedgerStorage } from '../../storage/ledger-storage.js';

/** Where a worker process is killed. */
export type CrashPoint = 'after-claim' | 'after-effect';

/** Everything a verification call needs, also sent to a child process as JSON. */
export interface SyntheticCall {
  readonly tool: string;
  readonly settings: ToolSettings;
  readonly agentId: string;
  readonly policyVersion: string;
  readonly scope: LedgerScope;
  readonly callId: string;
  readonly effectLog: string;
  readonly leaseTtlMs: number;
}

/** The settings a child process opens its store with, the call, and where it dies. */
export interface ChildOrder extends SyntheticCall {
  readonly store: StoreSettings;
  readonly crashAt: CrashPoint;
}

/** The environment variable a child reads its order from (never argv: it may hold a URL with a password). */
export const CHILD_ORDER_ENV = 'HYPHAE_VERIFY_CHILD_ORDER';

/** Effects the synthetic provider performed for `callId`. */
export function effectsOf(log: string, callId: string): number {
  if (!existsSync(log)) return 0;
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line !== '' && (JSON.parse(line) as { callId: string }).callId === callId).length;
}

/** The arguments of a synthetic call: one amount, and the provider key when the tool takes one. */
export function syntheticArgs(call: SyntheticCall): Record<string, unknown> {
  const key = call.settings.providerIdempotencyKeyParam;
  // The call id is in the arguments too, so tools keyed by intent get one transition per scenario.
  return { amount: 1, verify_call: call.callId, ...(key === undefined ? {} : { [key]: `verify-${call.callId}` }) };
}

/** How the body behaves: run the effect, then return, throw (an ambiguous end) or be killed. */
export type BodyMode = 'complete' | 'throw-after-effect' | CrashPoint;

/** The configured envelope of `call.tool` around the synthetic body, on `storage`. */
export function syntheticTool(
  storage: LedgerStorage,
  call: SyntheticCall,
  mode: BodyMode,
): LedgeredFunction<Record<string, unknown>, unknown> {
  const ledger = createLedger({
    storage,
    agentId: call.agentId,
    policyVersion: call.policyVersion,
    leaseTtlMs: call.leaseTtlMs,
    pollIntervalMs: 20,
    pollMaxIntervalMs: 100,
    pollTimeoutMs: call.leaseTtlMs,
  });
  const { settings } = call;
  const spec: ToolSpec = {
    name: call.tool,
    sideEffectClass: settings.sideEffectClass ?? 'read',
    ...pickDefined(settings, ['retryPermission', 'spendability', 'providerIdempotencyKeyParam', 'identity']),
  };
  return ledger.tool(spec, async function syntheticBody() {
    if (mode === 'after-claim') process.kill(process.pid, 'SIGKILL');
    return sideEffect(async () => {
      appendFileSync(call.effectLog, `${JSON.stringify({ callId: call.callId, pid: process.pid })}\n`);
      if (mode === 'after-effect') process.kill(process.pid, 'SIGKILL');
      if (mode === 'throw-after-effect') throw new Error('The connection closed before the provider answered');
      return { charged: call.callId, by: process.pid };
    });
  });
}

/** Run a child process that makes the call and is killed at `order.crashAt`; resolves with its signal. */
export function runCrashingChild(order: ChildOrder): Promise<NodeJS.Signals | null> {
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  const child = fileURLToPath(new URL(`./verify-child${ext}`, import.meta.url));
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [...process.execArgv, child], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, [CHILD_ORDER_ENV]: JSON.stringify(order) },
    });
    let stderr = '';
    proc.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    proc.on('error', reject);
    proc.on('exit', (code, signal) => {
      if (signal === null) reject(new Error(`The verification worker exited with code ${code}: ${stderr.trim()}`));
      else resolve(signal);
    });
  });
}
