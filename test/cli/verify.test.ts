import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import { hyphae } from '../config/cli-runner.js';
import { useTempDir, yaml } from '../config/helpers.js';
import { integrationSkip, POSTGRES_URL, probePostgres, probeRedis, REDIS_URL } from '../helpers/integration.js';

const tempDir = useTempDir();
const EXAMPLES = fileURLToPath(new URL('../../examples/config/', import.meta.url));
const ENV = { REDIS_URL, DATABASE_URL: POSTGRES_URL };
const redisSkip = integrationSkip(await probeRedis());
const postgresSkip = integrationSkip(await probePostgres());

interface Report {
  readonly summary: { pass: number; warn: number; fail: number };
  readonly results: readonly {
    scenario: string;
    tool: string | null;
    status: string;
    evidence: Record<string, unknown>;
  }[];
}

function verify(config: string, cwd: string) {
  const json = join(cwd, `report-${Math.random().toString(36).slice(2)}.json`);
  const run = hyphae(cwd, ['verify', '-c', config, '--json', json], ENV);
  const report = existsSync(json) ? (JSON.parse(readFileSync(json, 'utf8')) as Report) : undefined;
  return { ...run, report };
}

function expectAllPass(run: ReturnType<typeof verify>): void {
  expect(run.code, run.stdout + run.stderr).toBe(0);
  expect(run.report?.summary.fail).toBe(0);
  const scenarios = new Set(run.report?.results.map((r) => r.scenario));
  for (const name of [
    'duplicate_dispatch',
    'crash_inside_side_effect',
    'dead_worker',
    'ambiguous_effect',
    'loop',
    'refused_tool',
  ])
    expect(scenarios).toContain(name);
}

describe('hyphae verify on the example configs', () => {
  it('passes on SQLite, in a store of its own: the configured file is never created', () => {
    const run = verify(join(EXAMPLES, 'hyphae.sqlite.yaml'), tempDir());
    expectAllPass(run);
    expect(existsSync(fileURLToPath(new URL('../../.hyphae/example-ledger.db', import.meta.url)))).toBe(false);
    // The payment was killed inside its side effect; the redispatch refused to pay again.
    const crash = run.report?.results.find(
      (r) => r.scenario === 'crash_inside_side_effect' && r.tool === 'send_payment',
    );
    expect(crash?.evidence).toMatchObject({ effects: 1, redispatch: { ok: false, error: 'ledger_hard_block' } });
  });

  it.skipIf(redisSkip)('passes on Redis, and leaves no key behind', async () => {
    const run = verify(join(EXAMPLES, 'hyphae.redis.yaml'), tempDir());
    expectAllPass(run);
    const client = createClient({ url: REDIS_URL });
    await client.connect();
    try {
      const [, keys] = (await client.sendCommand(['SCAN', '0', 'MATCH', 'hyphae:verify:*', 'COUNT', '10000'])) as [
        string,
        string[],
      ];
      expect(keys).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it.skipIf(postgresSkip)('passes on PostgreSQL, and drops its tables', async () => {
    const run = verify(join(EXAMPLES, 'hyphae.postgres.yaml'), tempDir());
    expectAllPass(run);
    const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 1 });
    try {
      const { rows } = await pool.query(
        "select table_name from information_schema.tables where table_name like 'hyphae_verify_%'",
      );
      expect(rows).toEqual([]);
    } finally {
      await pool.end();
    }
  });
});

describe('hyphae verify on unsafe configs', () => {
  it('fails a payment tool declared `read`: the crash runs it twice', () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'hyphae.yaml'),
      yaml(
        'transition: { agent_id: a, policy_version: "1" }',
        'action_ledger: { storage: sqlite, path: ./ledger.db }',
        'tools:',
        '  send_payment: { side_effect_class: read }',
      ),
    );
    const run = verify('hyphae.yaml', dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('FAIL declared_class send_payment: `send_payment` is declared `read`');
    // No fuses and no registry: guards the config never asked for warn, with the lines to add.
    expect(run.stdout).toContain('WARN loop send_payment: no loop fuse');
    expect(run.stdout).toContain('WARN refused_tool: no registry and no permission fuse');
    expect(run.stdout).toContain('    registry:\n      auto: true');
    const crash = run.report?.results.find((r) => r.scenario === 'crash_inside_side_effect');
    expect(crash?.evidence).toMatchObject({ effects: 2 });
    expect(existsSync(join(dir, 'ledger.db'))).toBe(false);
  });

  it('fails a payment ledger on the memory store: a crash loses it', () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'hyphae.yaml'),
      yaml(
        'transition: { agent_id: a, policy_version: "1" }',
        'action_ledger: { storage: memory }',
        'tools:',
        '  issue_refund: { side_effect_class: non_idempotent_mutate }',
        'fuses: { permission: { granted: [] }, loop: { repeat_threshold: 3, terminal: true } }',
      ),
    );
    const run = verify('hyphae.yaml', dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('FAIL crash_inside_side_effect issue_refund: the memory store dies with the process');
    expect(run.stdout).toContain('PASS duplicate_dispatch issue_refund');
  });

  it('refuses a tool that is not ledgered, with the usage exit code', () => {
    const run = hyphae(tempDir(), ['verify', '-c', join(EXAMPLES, 'hyphae.sqlite.yaml'), '--tool', 'nope'], ENV);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('`nope` is not a ledgered tool');
  });
});
