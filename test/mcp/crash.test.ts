/**
 * The proxy killed (SIGKILL) in the middle of a payment: the call had left for the server, so the
 * effect may have happened. A new proxy process on the same ledger must not run it again.
 */

import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { hyphae } from '../config/cli-runner.js';
import { connectProxy, linesOf, SERVERS, textOf, useTempDirs, writeConfig } from './helpers.js';

const tempDir = useTempDirs();

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await sleep(25);
}

describe('a proxy killed mid-call', () => {
  it('refuses the retried payment in the next proxy process instead of paying twice', async () => {
    const dir = tempDir();
    const config = writeConfig(
      dir,
      'transition: { agent_id: mcp-test, policy_version: 1, lease_ttl: 1s }',
      'action_ledger: { storage: sqlite, path: ledger.db }',
      'fuses: { permission: { granted: [read, write, destructive] } }',
    );
    const effects = join(dir, 'effects.txt');
    const env = { EFFECTS_FILE: effects };
    const payment = { name: 'pay', arguments: { amount: 30, to: 'acct_6', delayMs: 1000 } };
    const doomed = await connectProxy(dir, SERVERS.test, { config, env });

    const lost = doomed.client.callTool(payment).catch((error: unknown) => error);
    await until(() => linesOf(`${effects}.started`).length === 1);
    process.kill(doomed.pid as number, 'SIGKILL');
    await lost;
    // The orphaned server finishes the payment on its own.
    await until(() => linesOf(effects).length === 1);

    const next = await connectProxy(dir, SERVERS.test, { config, env });
    const retried = await next.client.callTool(payment);
    const listed = JSON.parse(hyphae(dir, ['transitions', 'list', '--tool', 'pay', '--json']).stdout) as {
      shownOutcome: string;
      boundary: string;
    }[];

    expect(retried.isError).toBe(true);
    expect(textOf(retried)).toContain('NOT executed');
    expect(linesOf(effects)).toEqual(['pay_1 30 acct_6']);
    expect(listed.map((record) => [record.shownOutcome, record.boundary])).toEqual([['EXPIRED', 'maybe_crossed']]);
  });
});
