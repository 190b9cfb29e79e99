/**
 * A client that gives up on a side-effecting call (it cancels it, it times out, its process dies)
 * does not lose its outcome: the upstream call runs to its end, the proxy records it, and the
 * client's retry gets that one result. An identical call after an answer was delivered is a new call.
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

function setUp(): { readonly dir: string; readonly config: string; readonly effects: string } {
  const dir = tempDir();
  const config = writeConfig(dir, ...SQLITE_LEDGER, 'fuses: { permission: { granted: [read, write, destructive] } }');
  return { dir, config, effects: join(dir, 'effects.txt') };
}

function outcomes(dir: string): string[] {
  const listed = hyphae(dir, ['transitions', 'list', '--tool', 'pay', '--json']);
  return (JSON.parse(listed.stdout) as { outcome: string }[]).map((record) => record.outcome);
}

describe('a client that gives up on a payment', () => {
  it('gets the one charge as the answer to its retry after it cancelled the call', async () => {
    const { dir, config, effects } = setUp();
    const { client } = await connectProxy(dir, SERVERS.test, { config, env: { EFFECTS_FILE: effects } });
    const payment = { name: 'pay', arguments: { amount: 70, to: 'acct_3', delayMs: 600 } };

    const controller = new AbortController();
    const cancelled = client.callTool(payment, undefined, { signal: controller.signal });
    await until(() => linesOf(`${effects}.started`).length === 1);
    controller.abort('user pressed stop');
    await expect(cancelled).rejects.toThrow();
    const retried = await client.callTool(payment);

    expect(textOf(retried)).toBe('paid 70 to acct_3 as pay_1');
    expect(retried._meta?.['io.hyphae/replayed']).toBe(true);
    expect(linesOf(effects)).toEqual(['pay_1 70 acct_3']);
    // The cancellation stayed in the proxy: the server was not told to stop a payment.
    expect(linesOf(`${effects}.cancelled`)).toEqual([]);
    expect(outcomes(dir)).toEqual(['COMPLETED']);
  });

  it('gets the one charge as the answer to its retry after it timed out', async () => {
    const { dir, config, effects } = setUp();
    const { client } = await connectProxy(dir, SERVERS.test, { config, env: { EFFECTS_FILE: effects } });
    const payment = { name: 'pay', arguments: { amount: 12, to: 'acct_4', delayMs: 600 } };

    await expect(client.callTool(payment, undefined, { timeout: 100 })).rejects.toThrow(/timed out/i);
    const retried = await client.callTool(payment);

    expect(textOf(retried)).toBe('paid 12 to acct_4 as pay_1');
    expect(linesOf(effects)).toEqual(['pay_1 12 acct_4']);
  });

  it('gets the one charge from the next proxy after its process died mid-call', async () => {
    const { dir, config, effects } = setUp();
    const env = { EFFECTS_FILE: effects };
    const payment = { name: 'pay', arguments: { amount: 30, to: 'acct_6', delayMs: 600 } };
    const dying = await connectProxy(dir, SERVERS.test, { config, env });

    const lost = dying.client.callTool(payment).catch((error: unknown) => error);
    await until(() => linesOf(`${effects}.started`).length === 1);
    // The client goes away: the proxy's stdin closes under the call.
    await dying.close();
    await lost;
    const next = await connectProxy(dir, SERVERS.test, { config, env });
    const retried = await next.client.callTool(payment);

    expect(textOf(retried)).toBe('paid 30 to acct_6 as pay_1');
    expect(linesOf(effects)).toEqual(['pay_1 30 acct_6']);
    expect(outcomes(dir)).toEqual(['COMPLETED']);
  });

  it('runs an identical call of a second session whose first answer was delivered', async () => {
    const { dir, config, effects } = setUp();
    const env = { EFFECTS_FILE: effects };
    const payment = { name: 'pay', arguments: { amount: 5, to: 'acct_7' } };
    const first = await connectProxy(dir, SERVERS.test, { config, env });
    const answered = await first.client.callTool(payment);
    await first.close();
    const second = await connectProxy(dir, SERVERS.test, { config, env });
    const again = await second.client.callTool(payment);

    expect(textOf(answered)).toBe('paid 5 to acct_7 as pay_1');
    expect(textOf(again)).toBe('paid 5 to acct_7 as pay_1');
    expect(again._meta?.['io.hyphae/replayed']).toBeUndefined();
    expect(linesOf(effects)).toEqual(['pay_1 5 acct_7', 'pay_1 5 acct_7']);
    expect(outcomes(dir)).toEqual(['COMPLETED', 'COMPLETED']);
  });
});
