import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TransitionRecord } from '../../src/records/transition-record.js';
import { createSqliteStorage } from '../../src/storage/sqlite.js';
import { makeTestRecord } from '../../src/testing/index.js';
import { hyphae } from '../config/cli-runner.js';
import { useTempDir, yaml } from '../config/helpers.js';

const tempDir = useTempDir();
const KEY = { RECEIPT_KEY: 'k'.repeat(48) };

interface Ledger {
  readonly dir: string;
  readonly completed: TransitionRecord;
  readonly unknown: TransitionRecord;
  readonly expired: TransitionRecord;
  readonly held: TransitionRecord;
}

/** A config on a SQLite ledger (with JSONL receipts) holding one transition of each kind that matters. */
async function populatedLedger(): Promise<Ledger> {
  const dir = tempDir();
  writeFileSync(
    join(dir, 'hyphae.yaml'),
    yaml(
      'transition: { agent_id: agent, policy_version: 1 }',
      'action_ledger: { storage: sqlite, path: ledger.db }',
      'receipts: { algorithm: hmac-sha256, key_env: RECEIPT_KEY, key_id: k1, path: receipts.jsonl }',
      'tools:',
      '  send_payment: { side_effect_class: payment }',
      '  lookup: { side_effect_class: read }',
    ),
  );
  const now = Date.now();
  const completed = makeTestRecord({
    tool: 'lookup',
    outcome: 'COMPLETED',
    boundary: 'crossed',
    owner: null,
    leaseUntil: null,
    result: { name: 'Ada' },
    completedAt: now - 3000,
    updatedAt: now - 3000,
  });
  const unknown = makeTestRecord({
    outcome: 'UNKNOWN',
    boundary: 'maybe_crossed',
    owner: null,
    leaseUntil: null,
    externalOperationRef: 'pi_42',
    updatedAt: now - 2000,
  });
  // The expired claim's owner last renewed an hour ago (presumed dead); the held one just now.
  const expired = makeTestRecord({
    owner: 'host-a:11:aaaa#1',
    leaseUntil: now - 1000,
    lastHeartbeatAt: now - 3_600_000,
    updatedAt: now - 1000,
  });
  const held = makeTestRecord({
    owner: 'host-b:22:bbbb#3',
    leaseUntil: now + 3_600_000,
    lastHeartbeatAt: now,
    updatedAt: now,
  });
  const storage = createSqliteStorage({ path: join(dir, 'ledger.db') });
  for (const record of [completed, unknown, expired, held]) await storage.create(record);
  await storage.close();
  return { dir, completed, unknown, expired, held };
}

async function stored(dir: string, key: string): Promise<TransitionRecord | null> {
  const storage = createSqliteStorage({ path: join(dir, 'ledger.db') });
  try {
    return await storage.get(key);
  } finally {
    await storage.close();
  }
}

function keysOf(stdout: string): string[] {
  return (JSON.parse(stdout) as { key: string }[]).map((record) => record.key);
}

describe('hyphae transitions list and show', () => {
  it('lists every transition, newest first, with the derived EXPIRED outcome', async () => {
    const ledger = await populatedLedger();

    // Reading needs no signing key: the receipt key's variable is not set here.
    const table = hyphae(ledger.dir, ['transitions', 'list']);
    const json = hyphae(ledger.dir, ['transitions', 'list', '--json'], KEY);

    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^KEY +TOOL +KIND +OUTCOME +BOUNDARY +ATTEMPTS +UPDATED/);
    expect(table.stdout).toMatch(new RegExp(`${ledger.expired.key} +send_payment +tool +EXPIRED`));
    expect(keysOf(json.stdout)).toEqual([
      ledger.held.key,
      ledger.expired.key,
      ledger.unknown.key,
      ledger.completed.key,
    ]);
  });

  it('filters by --stuck, --outcome (EXPIRED included, any case) and --tool', async () => {
    const ledger = await populatedLedger();

    const stuck = hyphae(ledger.dir, ['transitions', 'list', '--stuck', '--json'], KEY);
    const expired = hyphae(ledger.dir, ['transitions', 'list', '--outcome', 'expired', '--json'], KEY);
    const two = hyphae(ledger.dir, ['transitions', 'list', '--outcome', 'UNKNOWN,COMPLETED', '--json'], KEY);
    const tool = hyphae(ledger.dir, ['transitions', 'list', '--tool', 'lookup', '--json'], KEY);

    expect(keysOf(stuck.stdout)).toEqual([ledger.expired.key, ledger.unknown.key]);
    expect(keysOf(expired.stdout)).toEqual([ledger.expired.key]);
    expect(keysOf(two.stdout)).toEqual([ledger.unknown.key, ledger.completed.key]);
    expect(keysOf(tool.stdout)).toEqual([ledger.completed.key]);
  });

  it('shows one transition, and exits 1 for a key it does not hold', async () => {
    const ledger = await populatedLedger();

    const shown = hyphae(ledger.dir, ['transitions', 'show', ledger.unknown.key], KEY);
    const missing = hyphae(ledger.dir, ['transitions', 'show', 'f'.repeat(64)], KEY);

    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/outcome +UNKNOWN/);
    expect(shown.stdout).toMatch(/boundary +maybe_crossed/);
    expect(shown.stdout).toMatch(/external ref +pi_42/);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`No transition \`${'f'.repeat(64)}\``);
  });

  it('exits 2 on an unknown outcome, subcommand or option', async () => {
    const ledger = await populatedLedger();

    const outcome = hyphae(ledger.dir, ['transitions', 'list', '--outcome', 'DONE'], KEY);
    const sub = hyphae(ledger.dir, ['transitions', 'purge'], KEY);
    const help = hyphae(ledger.dir, ['transitions', '--help'], KEY);

    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toContain('Unknown outcome `DONE`');
    expect(sub.code).toBe(2);
    expect(sub.stderr).toContain('Unknown subcommand `purge`');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('release KEY (--completed [--result JSON] | --not-executed) --by WHO --reason WHY');
  });

  it('exits 1 when the config cannot load, naming the file and line', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'agent.yaml'), yaml('action_ledger:', '  storage: sqlit'));

    const { code, stderr } = hyphae(dir, ['transitions', 'list', '-c', 'agent.yaml']);

    expect(code).toBe(1);
    expect(stderr).toContain('agent.yaml:2:12 `action_ledger.storage`');
  });
});

describe('hyphae transitions release and mark-dead', () => {
  it('releases an UNKNOWN transition as completed, with its result and a signed receipt', async () => {
    const ledger = await populatedLedger();
    const args = ['transitions', 'release', ledger.unknown.key, '--completed', '--result', '{"paid":true}'];

    const released = hyphae(ledger.dir, [...args, '--by', 'alice', '--reason', 'seen in the gateway'], KEY);
    const again = hyphae(ledger.dir, [...args, '--by', 'alice', '--reason', 'twice'], KEY);
    const record = await stored(ledger.dir, ledger.unknown.key);
    const receipts = readFileSync(join(ledger.dir, 'receipts.jsonl'), 'utf8').trim().split('\n');

    expect(released.code).toBe(0);
    expect(released.stdout).toContain(`Released \`${ledger.unknown.key}\` as COMPLETED`);
    expect(record).toMatchObject({ outcome: 'COMPLETED', result: { paid: true } });
    expect(record?.operatorResolution).toMatchObject({
      verified: 'completed',
      by: 'alice',
      reason: 'seen in the gateway',
    });
    // The UNKNOWN outcome was owed its receipt (the record had none); the release gets its own.
    expect(receipts.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ transitionKey: ledger.unknown.key, outcome: 'UNKNOWN', keyId: 'k1' }),
      expect.objectContaining({
        transitionKey: ledger.unknown.key,
        actionKind: 'release',
        outcome: 'COMPLETED',
        operator: { by: 'alice', reason: 'seen in the gateway' },
      }),
    ]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('is already COMPLETED');
  });

  it('releases an expired claim as not executed, and refuses one whose lease is held', async () => {
    const ledger = await populatedLedger();
    const audit = ['--by', 'bob', '--reason', 'provider has no such charge'];

    const expired = hyphae(ledger.dir, ['transitions', 'release', ledger.expired.key, '--not-executed', ...audit], KEY);
    const held = hyphae(ledger.dir, ['transitions', 'release', ledger.held.key, '--not-executed', ...audit], KEY);

    expect(expired.code).toBe(0);
    expect((await stored(ledger.dir, ledger.expired.key))?.operatorResolution).toMatchObject({
      verified: 'not_executed',
      consumedAt: null,
    });
    expect(held.code).toBe(1);
    expect(held.stderr).toContain('a lease is held by `host-b:22:bbbb#3`');
  });

  it('exits 2 on a release without its audit or its verdict', async () => {
    const ledger = await populatedLedger();

    const noBy = hyphae(
      ledger.dir,
      ['transitions', 'release', ledger.unknown.key, '--completed', '--reason', 'x'],
      KEY,
    );
    const noVerdict = hyphae(
      ledger.dir,
      ['transitions', 'release', ledger.unknown.key, '--by', 'a', '--reason', 'x'],
      KEY,
    );
    const badJson = hyphae(
      ledger.dir,
      ['transitions', 'release', ledger.unknown.key, '--completed', '--result', '{', '--by', 'a', '--reason', 'x'],
      KEY,
    );

    // The ledger's own operator checks, before the store is opened.
    const resultNotExecuted = hyphae(
      ledger.dir,
      ['transitions', 'release', ledger.unknown.key, '--not-executed', '--result', '{}', '--by', 'a', '--reason', 'x'],
      KEY,
    );
    const blankBy = hyphae(
      ledger.dir,
      ['transitions', 'release', ledger.unknown.key, '--not-executed', '--by', ' ', '--reason', 'x'],
      KEY,
    );

    expect([noBy.code, noVerdict.code, badJson.code, resultNotExecuted.code, blankBy.code]).toEqual([2, 2, 2, 2, 2]);
    expect(noBy.stderr).toContain('needs `--by`');
    expect(noVerdict.stderr).toContain('Pass one of `--completed` and `--not-executed`');
    expect(badJson.stderr).toContain('`--result` must be JSON');
    expect(resultNotExecuted.stderr).toContain('`--result` goes only with');
    expect(blankBy.stderr).toContain('`--by` is required (who acts)');
    expect((await stored(ledger.dir, ledger.unknown.key))?.outcome).toBe('UNKNOWN');
  });

  it('marks the claims of a dead worker by owner, and refuses a key that is not in flight', async () => {
    const ledger = await populatedLedger();
    const audit = ['--by', 'oncall', '--reason', 'host-b was terminated'];

    const alive = hyphae(ledger.dir, ['transitions', 'mark-dead', '--owner', 'host-b:22:bbbb', ...audit], KEY);
    const aliveRecord = await stored(ledger.dir, ledger.held.key);
    const byOwner = hyphae(
      ledger.dir,
      ['transitions', 'mark-dead', '--owner', 'host-b:22:bbbb', ...audit, '--override-heartbeat'],
      KEY,
    );
    const completed = hyphae(ledger.dir, ['transitions', 'mark-dead', ledger.completed.key, ...audit], KEY);
    const nobody = hyphae(ledger.dir, ['transitions', 'mark-dead', '--owner', 'host-z', ...audit], KEY);
    const stuck = hyphae(ledger.dir, ['transitions', 'list', '--stuck', '--json'], KEY);

    expect(alive.code).toBe(1);
    expect(alive.stderr).toContain('may be alive, its last heartbeat was');
    expect(aliveRecord?.workerDeath).toBeUndefined();
    expect(byOwner.code).toBe(0);
    expect(byOwner.stdout).toContain(`Marked dead \`${ledger.held.key}\``);
    const marked = await stored(ledger.dir, ledger.held.key);
    expect(marked?.error?.message).toContain('marked dead by oncall');
    expect(marked?.workerDeath).toMatchObject({
      owner: 'host-b:22:bbbb#3',
      by: 'oncall',
      reason: 'host-b was terminated',
      overrideHeartbeat: true,
    });
    expect(keysOf(stuck.stdout)).toContain(ledger.held.key);
    expect(completed.code).toBe(1);
    expect(completed.stderr).toContain('is `COMPLETED`, not IN_FLIGHT');
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toContain('No IN_FLIGHT transition is held by `host-z`');
  });
});
