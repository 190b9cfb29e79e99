/**
 * `hyphae mcp` end to end over stdio: the SDK's client ↔ the proxy ↔ our test server. Every effect
 * of the payment tool is a line in a file, so "ran once" is counted, not assumed.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectProxy, linesOf, SERVERS, SQLITE_LEDGER, textOf, useTempDirs, writeConfig } from './helpers.js';

const tempDir = useTempDirs();
const PAY_GRANTS = 'fuses: { permission: { granted: [read, write, destructive] } }';

function refusalCode(result: unknown): unknown {
  return (result as { _meta?: Record<string, { code?: unknown }> })._meta?.['io.hyphae/refusal']?.code;
}

describe('hyphae mcp over stdio', () => {
  it('passes a read tool through and refuses a write tool that was not granted', async () => {
    const dir = tempDir();
    const config = writeConfig(dir, ...SQLITE_LEDGER, 'fuses: { permission: { granted: [read] } }');
    const effects = join(dir, 'effects.txt');
    const { client } = await connectProxy(dir, SERVERS.test, { config, env: { EFFECTS_FILE: effects } });

    const echo = await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
    const pay = await client.callTool({ name: 'pay', arguments: { amount: 5, to: 'bob' } });

    expect(textOf(echo)).toBe('hello');
    expect(pay.isError).toBe(true);
    expect(textOf(pay)).toContain('NOT executed');
    expect(textOf(pay)).toContain('`destructive`');
    expect(refusalCode(pay)).toBe('permission_denied');
    expect(linesOf(effects)).toEqual([]);
  });

  it('refuses the third identical call of a loop and its repeats, and keeps the session running', async () => {
    const dir = tempDir();
    const { client } = await connectProxy(dir, SERVERS.test, { config: writeConfig(dir, ...SQLITE_LEDGER) });

    const results = [];
    for (let i = 0; i < 4; i++) results.push(await client.callTool({ name: 'echo', arguments: { text: 'again' } }));
    const otherArgs = await client.callTool({ name: 'echo', arguments: { text: 'something else' } });
    const otherTool = await client.callTool({ name: 'forecast', arguments: { city: 'Oslo' } });

    expect(results.slice(0, 2).map(textOf)).toEqual(['again', 'again']);
    for (const refused of results.slice(2)) {
      expect(refused?.isError).toBe(true);
      expect(refusalCode(refused)).toBe('loop_repeat');
      expect(textOf(refused)).toContain('NOT executed');
    }
    expect(otherArgs.isError).toBeUndefined();
    expect(textOf(otherArgs)).toBe('something else');
    expect(textOf(otherTool)).toBe('sunny in Oslo');
  });

  it('stops a session whose budget is spent until the client starts a new session, and says so', async () => {
    const dir = tempDir();
    const config = writeConfig(dir, ...SQLITE_LEDGER, 'mcp: { budget: { max_calls: 2 } }');
    const spent = await connectProxy(dir, SERVERS.test, { config });

    await spent.client.callTool({ name: 'echo', arguments: { text: 'one' } });
    await spent.client.callTool({ name: 'echo', arguments: { text: 'two' } });
    const over = await spent.client.callTool({ name: 'echo', arguments: { text: 'three' } });
    const after = await spent.client.callTool({ name: 'forecast', arguments: { city: 'Oslo' } });
    await spent.close();
    const fresh = await connectProxy(dir, SERVERS.test, { config });
    const renewed = await fresh.client.callTool({ name: 'echo', arguments: { text: 'three' } });

    expect(refusalCode(over)).toBe('budget_calls_exceeded');
    expect(textOf(over)).toContain('It lasts until the client starts a new session');
    expect(refusalCode(after)).toBe('run_stopped');
    expect(textOf(after)).toContain('(`budget_calls_exceeded`)');
    expect(textOf(after)).toContain('It lasts until the client starts a new session');
    expect(textOf(renewed)).toBe('three');
  });

  it('runs a payment once when the client re-sends it in flight, and again once it was answered', async () => {
    const dir = tempDir();
    const config = writeConfig(dir, ...SQLITE_LEDGER, PAY_GRANTS);
    const effects = join(dir, 'effects.txt');
    const { client } = await connectProxy(dir, SERVERS.test, { config, env: { EFFECTS_FILE: effects } });
    const payment = { name: 'pay', arguments: { amount: 40, to: 'acct_7', delayMs: 1500 } };

    // A client that timed out re-sends with a new JSON-RPC id while the first is still running.
    const [first, retried] = await Promise.all([client.callTool(payment), client.callTool(payment)]);
    // Its answer was delivered: the same payment again is a new one.
    const later = await client.callTool(payment);
    const other = await client.callTool({ name: 'pay', arguments: { amount: 41, to: 'acct_7' } });

    expect(linesOf(effects)).toEqual(['pay_1 40 acct_7', 'pay_2 40 acct_7', 'pay_3 41 acct_7']);
    expect(textOf(first)).toBe('paid 40 to acct_7 as pay_1');
    expect(textOf(retried)).toBe('paid 40 to acct_7 as pay_1');
    expect(textOf(later)).toBe('paid 40 to acct_7 as pay_2');
    expect(later._meta?.['io.hyphae/replayed']).toBeUndefined();
    expect(textOf(other)).toBe('paid 41 to acct_7 as pay_3');
  });

  it('answers a payment the client retries with its key after a reconnect (a new proxy process) from the ledger', async () => {
    const dir = tempDir();
    const config = writeConfig(dir, ...SQLITE_LEDGER, PAY_GRANTS);
    const effects = join(dir, 'effects.txt');
    const env = { EFFECTS_FILE: effects };
    const payment = { name: 'pay', arguments: { amount: 9, to: 'acct_1' }, _meta: { idempotencyKey: 'order-9' } };
    const before = await connectProxy(dir, SERVERS.test, { config, env });
    const first = await before.client.callTool(payment);
    await before.close();

    const after = await connectProxy(dir, SERVERS.test, { config, env });
    const retried = await after.client.callTool(payment);

    expect(linesOf(effects)).toEqual(['pay_1 9 acct_1']);
    expect(textOf(retried)).toBe(textOf(first));
    expect(retried._meta?.['io.hyphae/replayed']).toBe(true);
  });

  it('keys a call by the idempotency key the client sends in `_meta`', async () => {
    const dir = tempDir();
    const config = writeConfig(dir, ...SQLITE_LEDGER, PAY_GRANTS);
    const effects = join(dir, 'effects.txt');
    const { client } = await connectProxy(dir, SERVERS.test, { config, env: { EFFECTS_FILE: effects } });
    const keyed = (key: string, amount: number) => ({
      name: 'pay',
      arguments: { amount, to: 'acct_2' },
      _meta: { 'io.hyphae/idempotency-key': key },
    });

    await client.callTool(keyed('order-1', 5));
    const again = await client.callTool(keyed('order-1', 5));
    const reused = await client.callTool(keyed('order-1', 6));
    await client.callTool(keyed('order-2', 5));

    expect(linesOf(effects)).toEqual(['pay_1 5 acct_2', 'pay_2 5 acct_2']);
    expect(again._meta?.['io.hyphae/replayed']).toBe(true);
    expect(reused.isError).toBe(true);
    expect(textOf(reused)).toContain('NOT');
  });

  it('hides a tool outside `mcp.allow` from tools/list and refuses it when called anyway', async () => {
    const dir = tempDir();
    const config = writeConfig(dir, ...SQLITE_LEDGER, PAY_GRANTS, 'mcp: { allow: [echo] }');
    const effects = join(dir, 'effects.txt');
    const { client } = await connectProxy(dir, SERVERS.test, { config, env: { EFFECTS_FILE: effects } });

    const listed = await client.listTools();
    const pay = await client.callTool({ name: 'pay', arguments: { amount: 1, to: 'x' } });

    expect(listed.tools.map((tool) => tool.name)).toEqual(['echo']);
    expect(pay.isError).toBe(true);
    expect(textOf(pay)).toContain('NOT executed');
    expect(refusalCode(pay)).toBe('mcp_tool_not_allowed');
    expect(linesOf(effects)).toEqual([]);
  });
});
