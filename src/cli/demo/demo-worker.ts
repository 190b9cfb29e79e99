/**
 * Worker process of `hyphae demo --redis|--postgres`: dispatches one slow call on the shared
 * ledger and prints whether its body ran and what it returned, or the error (with its cause) that
 * stopped it — opening the store included.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createLedger } from '../../ledger/create-ledger.js';
import type { Ledger } from '../../ledger/types.js';
import type { LedgerScope } from '../../records/transition-record.js';
import { describeError } from '../lib/describe-error.js';
import { openDemoStorage, parseBackendArgs } from './open-storage.js';

const [kind, target, scopeJson, toolCallId, name] = process.argv.slice(2);
let ran = false;
let ledger: Ledger | undefined;
try {
  ledger = createLedger({
    storage: await openDemoStorage(parseBackendArgs(kind, target)),
    agentId: 'demo-agent',
    policyVersion: 'demo-1',
    pollIntervalMs: 20,
  });
  const research = ledger.tool(
    { name: 'research_subagent', sideEffectClass: 'subagent' },
    async (args: { task: string }) => {
      ran = true;
      await sleep(600);
      return { summary: `researched ${args.task}`, by: name };
    },
  );
  const result = await research(
    { task: 'vendor pricing' },
    {
      toolCallId: toolCallId ?? 'call_shared',
      ...(scopeJson === undefined ? {} : { scope: JSON.parse(scopeJson) as LedgerScope }),
    },
  );
  process.stdout.write(`${JSON.stringify({ ok: true, ran, result })}\n`);
} catch (error) {
  const code = (error as { code?: unknown } | null)?.code;
  const report = { ok: false, ran, ...(typeof code === 'string' ? { code } : {}), message: describeError(error) };
  process.stdout.write(`${JSON.stringify(report)}\n`);
} finally {
  await ledger?.close().catch(() => undefined);
}
