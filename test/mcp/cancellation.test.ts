/**
 * A client's cancellation of a side-effecting call reaches the upstream and is recorded like an
 * abort: the effect may have happened, so a retry is refused until an operator resolves it.
 */

import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { hyphae } from '../config/cli-runner.js';
import { connectProxy, linesOf, SERVERS, SQLITE_LEDGER, textOf, useTempDirs, writeConfig } from './helpers.js';

const tempDir = useTempDirs();

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await sleep(25);
}

describe('cancellation through hyphae mcp', () => {
  it('records a cancelled payment as UNKNOWN, refuses its retry, and answers it once an operator releases it', async () => {
    const dir = tempDir();
    const config = writeConfig(dir, ...SQLITE_LEDGER, 'fuses: { permission: { granted: [read, write, destructive] } }');
    const effects = join(dir, 'effects.txt');
    const { client } = await connectProxy(dir, SERVERS.test, { config, env: { EFFECTS_FILE: effects } });
    const payment = { name: 'pay', arguments: { amount: 70, to: 'acct_3', delayMs: 1500 } };

    const controller = new AbortController();
    const cancelled = client.callTool(payment, undefined, { signal: controller.signal });
    await until(() => linesOf(`${effects}.started`).length === 1);
    controller.abort('user pressed stop');
    await expect(cancelled).rejects.toThrow();
    // The server did not stop: the effect happened after the cancellation.
    await until(() => linesOf(effects).length === 1);
    const retried = await client.callTool(payment);

    expect(retried.isError).toBe(true);
    expect(textOf(retried)).toContain('NOT executed');
    expect(linesOf(effects)).toEqual(['pay_1 70 acct_3']);
    expect(linesOf(`${effects}.cancelled`)).toEqual(['70 acct_3']);
    const listed = hyphae(dir, ['transitions', 'list', '--tool', 'pay', '--json']);
    const [record] = JSON.parse(listed.stdout) as { key: string; outcome: string; boundary: string }[];
    expect(record?.outcome).toBe('UNKNOWN');
    expect(record?.boundary).toBe('maybe_crossed');

    const result = JSON.stringify({ content: [{ type: 'text', text: 'paid 70 to acct_3 as pay_1' }] });
    const release = hyphae(dir, [
      'transitions',
      'release',
      record?.key ?? '',
      '--completed',
      '--result',
      result,
      '--by',
      'ops',
      '--reason',
      'the gateway shows pay_1',
    ]);
    expect(release.code).toBe(0);
    const answered = await client.callTool(payment);

    expect(textOf(answered)).toBe('paid 70 to acct_3 as pay_1');
    expect(linesOf(effects)).toEqual(['pay_1 70 acct_3']);
  });
});
