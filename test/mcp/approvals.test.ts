/**
 * `approval: required` end to end: a client that supports elicitation asks its user; one that does
 * not gets the call held as a transition that an operator releases.
 */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { hyphae } from '../config/cli-runner.js';
import { connectProxy, linesOf, SERVERS, SQLITE_LEDGER, textOf, useTempDirs, writeConfig } from './helpers.js';

const tempDir = useTempDirs();
const APPROVED_PAY = [
  ...SQLITE_LEDGER,
  'fuses: { permission: { granted: [read, write, destructive] } }',
  'mcp: { tools: { pay: { approval: required } } }',
];

function refusalCode(result: unknown): unknown {
  return (result as { _meta?: Record<string, { code?: unknown }> })._meta?.['io.hyphae/refusal']?.code;
}

const eliciting: Client[] = [];
afterEach(async () => {
  await Promise.allSettled(eliciting.splice(0).map((client) => client.close()));
});

/** An SDK client that supports elicitation and answers every request with `approve`. */
async function elicitingClient(dir: string, config: string, effects: string, approve: boolean) {
  const tsx = new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;
  const main = new URL('../../src/cli/main.ts', import.meta.url).pathname;
  const client = new Client({ name: 'eliciting', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  const asked: string[] = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params.message);
    return { action: 'accept', content: { approve } };
  });
  const [command, ...args] = SERVERS.test;
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', tsx, main, 'mcp', '-c', config, '--', command, ...args],
      cwd: dir,
      env: { ...(process.env as Record<string, string>), EFFECTS_FILE: effects },
      stderr: 'ignore',
    }),
  );
  eliciting.push(client);
  return { client, asked };
}

describe('approvals', () => {
  it('asks the user through elicitation and runs the call only when approved', async () => {
    const dir = tempDir();
    const config = writeConfig(dir, ...APPROVED_PAY);
    const yes = await elicitingClient(dir, config, join(dir, 'yes.txt'), true);
    const approved = await yes.client.callTool({ name: 'pay', arguments: { amount: 8, to: 'acct_4' } });
    const noDir = tempDir();
    const no = await elicitingClient(noDir, writeConfig(noDir, ...APPROVED_PAY), join(noDir, 'no.txt'), false);
    const declined = await no.client.callTool({ name: 'pay', arguments: { amount: 8, to: 'acct_4' } });

    expect(yes.asked).toHaveLength(1);
    expect(yes.asked[0]).toContain('`pay`');
    expect(textOf(approved)).toBe('paid 8 to acct_4 as pay_1');
    expect(linesOf(join(dir, 'yes.txt'))).toEqual(['pay_1 8 acct_4']);
    expect(declined.isError).toBe(true);
    expect(refusalCode(declined)).toBe('approval_declined');
    expect(linesOf(join(noDir, 'no.txt'))).toEqual([]);
  });

  it('asks nobody for a call the guards refuse anyway: the fuses and argument checks come first', async () => {
    const dir = tempDir();
    // `pay` is destructive and the grant leaves `destructive` out: the permission fuse refuses it.
    const config = writeConfig(
      dir,
      ...SQLITE_LEDGER,
      'fuses: { permission: { granted: [read, write] } }',
      'mcp: { tools: { pay: { approval: required } } }',
    );
    const effects = join(dir, 'effects.txt');
    const { client, asked } = await elicitingClient(dir, config, effects, true);

    const refused = await client.callTool({ name: 'pay', arguments: { amount: 8, to: 'acct_4' } });

    expect(refused.isError).toBe(true);
    expect(refusalCode(refused)).not.toMatch(/^approval/);
    expect(asked).toEqual([]);
    expect(linesOf(effects)).toEqual([]);
  });

  it('holds the call for an operator when the client cannot ask, and runs it once after the release', async () => {
    const dir = tempDir();
    const config = writeConfig(dir, ...APPROVED_PAY);
    const effects = join(dir, 'effects.txt');
    const { client } = await connectProxy(dir, SERVERS.test, { config, env: { EFFECTS_FILE: effects } });
    const payment = { name: 'pay', arguments: { amount: 15, to: 'acct_5' } };

    const held = await client.callTool(payment);
    const stillHeld = await client.callTool(payment);
    const listed = hyphae(dir, ['transitions', 'list', '--tool', 'mcp.approval', '--json']);
    const records = JSON.parse(listed.stdout) as { key: string; outcome: string }[];

    expect(refusalCode(held)).toBe('approval_pending');
    expect(textOf(held)).toContain('NOT executed');
    expect(refusalCode(stillHeld)).toBe('approval_pending');
    expect(records.map((record) => record.outcome)).toEqual(['BLOCKED']);
    expect(textOf(held)).toContain(records[0]?.key);
    expect(linesOf(effects)).toEqual([]);

    const release = hyphae(dir, [
      'mcp',
      'approve',
      '--call',
      records[0]?.key ?? '',
      '--by',
      'ops',
      '--reason',
      'approved by finance',
    ]);
    expect(release.code).toBe(0);
    const ran = await client.callTool(payment);
    // Asked again once its answer was delivered, the payment is a new call: the approval was spent
    // by the first, so this one is held for an approval of its own and does NOT run.
    const again = await client.callTool(payment);

    expect(textOf(ran)).toBe('paid 15 to acct_5 as pay_1');
    expect(refusalCode(again)).toBe('approval_pending');
    expect(linesOf(effects)).toEqual(['pay_1 15 acct_5']);
    const approvals = JSON.parse(hyphae(dir, ['transitions', 'list', '--tool', 'mcp.approval', '--json']).stdout) as {
      key: string;
      outcome: string;
    }[];
    expect(approvals).toHaveLength(2);
    expect(textOf(again)).toContain(approvals.find((record) => record.key !== records[0]?.key)?.key);
    // The approval found is a verdict of the decision the call was claimed with, after the other checks'.
    const all = JSON.parse(hyphae(dir, ['transitions', 'list', '--json']).stdout) as {
      tool: string;
      effectState: string;
      decision?: { verdicts: { check: string; verdict: string; reason?: string }[] };
    }[];
    const paid = all.find((record) => record.tool === 'pay');
    expect(paid?.effectState).toBe('COMMITTED');
    // Only a held call is approved this way: the payment's own transition is refused.
    const paidKey = (all as unknown as { key: string; tool: string }[]).find((record) => record.tool === 'pay')?.key;
    const wrong = hyphae(dir, ['mcp', 'approve', '--call', paidKey ?? '', '--by', 'ops', '--reason', 'oops']);
    expect([wrong.code, wrong.stderr]).toEqual([1, expect.stringContaining('is not a call held for approval')]);
    expect(paid?.decision?.verdicts.map((v) => `${v.verdict} ${v.check}`)).toEqual([
      'allow registry',
      'allow fuses',
      'allow arguments',
      'allow approval',
      'allow ledger',
    ]);
  });
});
