/**
 * `hyphae demo`: the ledger's main job, step by step, on an embedded SQLite ledger.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLedger } from '../../ledger/create-ledger.js';
import { createSqliteStorage } from '../../storage/sqlite.js';
import type { Output } from '../output.js';
import type { DemoContext, StepReport } from './demo-context.js';
import { readRetriesAfterUnknown } from './step-read-retry.js';
import { crashInsideSideEffect, reconcileNotExecuted } from './steps-payment.js';
import { guardedRedispatch, unguardedRedispatch } from './steps-redispatch.js';

const STEPS: readonly { readonly title: string; readonly run: (ctx: DemoContext) => Promise<StepReport> }[] = [
  { title: 'unguarded: a slow subagent call redispatched while it still runs', run: unguardedRedispatch },
  { title: 'the same redispatch through the ledger', run: guardedRedispatch },
  { title: 'a payment whose process is killed inside sideEffect', run: crashInsideSideEffect },
  { title: 'a reconciler proves NOT_EXECUTED', run: reconcileNotExecuted },
  { title: 'a read tool retries after UNKNOWN', run: readRetriesAfterUnknown },
];

/** Options of {@link runDemo}. */
export interface DemoOptions {
  /** Keep the temp folder (and print where it is). */
  readonly keep?: boolean;
}

/** Run every step; true when all passed. */
export async function runDemo(out: Output, options: DemoOptions = {}): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'hyphae-demo-'));
  const dbPath = join(dir, 'ledger.db');
  const ledger = createLedger({
    storage: createSqliteStorage({ path: dbPath }),
    agentId: 'demo-agent',
    policyVersion: 'demo-1',
    pollIntervalMs: 20,
  });
  const ctx: DemoContext = { dir, dbPath, gatewayPath: join(dir, 'gateway.jsonl'), leaseTtlMs: 800, ledger };
  out.line(out.bold('hyphae demo — the transition ledger on SQLite'));
  out.line(out.dim(`ledger: ${dbPath}`));
  let passed = 0;
  try {
    for (const [index, step] of STEPS.entries()) {
      out.line();
      out.line(out.bold(`${index + 1}. ${step.title}`));
      let report: StepReport;
      try {
        report = await step.run(ctx);
      } catch (error) {
        report = { pass: false, lines: [`step threw: ${error instanceof Error ? error.message : String(error)}`] };
      }
      for (const line of report.lines) out.line(`   ${line}`);
      out.line(`   ${report.pass ? out.pass('PASS') : out.fail('FAIL')}`);
      if (report.pass) passed++;
    }
  } finally {
    await ledger.close();
    if (options.keep === true) out.line(out.dim(`kept ${dir}`));
    else rmSync(dir, { recursive: true, force: true });
  }
  out.line();
  const allPassed = passed === STEPS.length;
  out.line(`${allPassed ? out.pass('PASS') : out.fail('FAIL')} ${passed}/${STEPS.length} steps`);
  return allPassed;
}
