/**
 * `hyphae demo`: the ledger's main job, step by step — on an embedded SQLite ledger by default,
 * or on a shared Redis or PostgreSQL ledger.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GuardError } from '../../errors.js';
import { createLedger } from '../../ledger/create-ledger.js';
import { redactedUrl, storeFacts } from '../../storage/drivers.js';
import type { LedgerStorage } from '../../storage/ledger-storage.js';
import { describeError } from '../lib/describe-error.js';
import type { Output } from '../output.js';
import type { DemoContext, StepReport } from './demo-context.js';
import { type DemoBackend, openDemoStorage } from './open-storage.js';
import { readRetriesAfterUnknown } from './step-read-retry.js';
import { sharedLedgerWorkers } from './step-shared-ledger.js';
import { crashInsideSideEffect, reconcileNotExecuted } from './steps-payment.js';
import { guardedRedispatch, unguardedRedispatch } from './steps-redispatch.js';

interface DemoStep {
  readonly title: string;
  readonly run: (ctx: DemoContext) => Promise<StepReport>;
}

const STEPS: readonly DemoStep[] = [
  { title: 'unguarded: a slow subagent call redispatched while it still runs', run: unguardedRedispatch },
  { title: 'the same redispatch through the ledger', run: guardedRedispatch },
  { title: 'a payment whose process is killed inside sideEffect', run: crashInsideSideEffect },
  { title: 'a reconciler proves NOT_EXECUTED', run: reconcileNotExecuted },
  { title: 'a read tool retries after UNKNOWN', run: readRetriesAfterUnknown },
];

const SHARED_STEP: DemoStep = {
  title: 'two worker processes share the ledger',
  run: sharedLedgerWorkers,
};

/** Options of {@link runDemo}. */
export interface DemoOptions {
  /** Keep the temp folder (and print where it is). */
  readonly keep?: boolean;
  /** A shared Redis or PostgreSQL ledger instead of the embedded SQLite one. */
  readonly backend?: Exclude<DemoBackend, { kind: 'sqlite' | 'memory' }>;
}

/** The demo's store could not be opened (a missing driver, a refused connection): nothing ran. */
export class DemoStoreError extends Error {
  override readonly name = 'DemoStoreError';
}

/**
 * Open the store and read from it once, so a missing driver or an unreachable server is found
 * before the first step, as one error.
 */
async function openChecked(backend: DemoBackend): Promise<LedgerStorage> {
  let storage: LedgerStorage | undefined;
  try {
    storage = await openDemoStorage(backend);
    await storage.list({ limit: 1 });
    return storage;
  } catch (error) {
    await storage?.close().catch(() => undefined);
    // A missing package is said by its own message (which names the install command), once.
    const said =
      error instanceof GuardError && error.code === 'missing_peer_dependency' ? error.message : describeError(error);
    throw new DemoStoreError(`The demo cannot open its ${backend.kind} ledger: ${said}`, { cause: error });
  }
}

/**
 * Run every step; true when all passed.
 *
 * @throws DemoStoreError when the store cannot be opened (the temp folder is removed first).
 */
export async function runDemo(out: Output, options: DemoOptions = {}): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'hyphae-demo-'));
  // Ctrl-C or a kill in the middle of a step skips the `finally` below: remove the folder then too.
  const interrupted = (signal: NodeJS.Signals) => {
    if (options.keep !== true) rmSync(dir, { recursive: true, force: true });
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  const backend: DemoBackend = options.backend ?? { kind: 'sqlite', path: join(dir, 'ledger.db') };
  const steps = options.backend === undefined ? STEPS : [...STEPS, SHARED_STEP];
  let passed = 0;
  try {
    const ledger = createLedger({
      storage: await openChecked(backend),
      agentId: 'demo-agent',
      policyVersion: 'demo-1',
      pollIntervalMs: 20,
    });
    const ctx: DemoContext = {
      dir,
      backend,
      scope: { threadId: 'hyphae-demo', runId: randomUUID() },
      gatewayPath: join(dir, 'gateway.jsonl'),
      leaseTtlMs: 800,
      ledger,
    };
    const facts = storeFacts(backend);
    out.line(out.bold(`hyphae demo — the transition ledger on ${facts.title}`));
    out.line(out.dim(`ledger: ${facts.describe}${facts.server ? ` at ${redactedUrl(backend)}` : ''}`));
    try {
      for (const [index, step] of steps.entries()) {
        out.line();
        out.line(out.bold(`${index + 1}. ${step.title}`));
        let report: StepReport;
        try {
          report = await step.run(ctx);
        } catch (error) {
          report = { pass: false, lines: [`step failed with an error: ${describeError(error)}`] };
        }
        for (const line of report.lines) out.line(`   ${line}`);
        out.line(`   ${report.pass ? out.pass('PASS') : out.fail('FAIL')}`);
        if (report.pass) passed++;
      }
    } finally {
      await ledger.close();
    }
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    if (options.keep === true) out.line(out.dim(`kept ${dir}`));
    else rmSync(dir, { recursive: true, force: true });
  }
  out.line();
  const allPassed = passed === steps.length;
  out.line(`${allPassed ? out.pass('PASS') : out.fail('FAIL')} ${passed}/${steps.length} steps`);
  return allPassed;
}
