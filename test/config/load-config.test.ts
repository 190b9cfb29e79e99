import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/errors.js';
import { type ConfigEvent, loadConfig } from '../../src/config/load-config.js';
import { HistoryTruncatedError } from '../../src/context/errors.js';
import { sideEffect } from '../../src/ledger/boundary-markers.js';
import { LEDGER_HEADER, useTempDir, yaml } from './helpers.js';

const tempDir = useTempDir();
const KEY = 'k'.repeat(48);

async function configError(promise: Promise<unknown>): Promise<ConfigError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ConfigError)) throw new Error(`expected a ConfigError, got ${String(error)}`);
  return error;
}

describe('loadConfig: files, environment and keys', () => {
  it('resolves relative paths against the config file, not the working directory', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'agent'));
    writeFileSync(
      join(dir, 'agent', 'hyphae.yaml'),
      yaml(...LEDGER_HEADER, 'tools:', '  pay: { side_effect_class: read }'),
    );

    const config = await loadConfig('agent/hyphae.yaml', { cwd: dir, env: {} });
    await config.tool('pay', async () => 'ok')({}, { toolCallId: 'c1' });
    await config.close();

    expect(config.file).toBe(join(dir, 'agent', 'hyphae.yaml'));
    expect(existsSync(join(dir, 'agent', '.hyphae', 'ledger.db'))).toBe(true);
  });

  it('names a missing file and the command that creates one', async () => {
    const error = await configError(loadConfig('nope.yaml', { cwd: tempDir() }));

    expect(error.message).toBe('Config file `nope.yaml` not found; create one with `hyphae init`');
    expect(error.issues).toEqual([]);
  });

  it('places a missing environment variable at the key that names it', async () => {
    const text = yaml(
      'transition: { agent_id: a, policy_version: 1 }',
      'action_ledger:',
      '  storage: redis',
      '  url_env: REDIS_URL',
    );

    const error = await configError(loadConfig({ text, path: 'hyphae.yaml' }, { env: {} }));

    expect(error.issues).toEqual([
      { path: 'action_ledger.url_env', line: 4, column: 12, message: 'Environment variable `REDIS_URL` is not set' },
    ]);
  });

  it('places a signing key that is too short at its key', async () => {
    const text = yaml(
      ...LEDGER_HEADER,
      'receipts:',
      '  algorithm: hmac-sha256',
      '  key_env: RECEIPT_KEY',
      '  key_id: k1',
    );

    const error = await configError(loadConfig({ text }, { env: { RECEIPT_KEY: 'short' }, cwd: tempDir() }));

    expect(error.issues[0]).toMatchObject({ path: 'receipts.key_env', line: 9, column: 12 });
    expect(error.issues[0]?.message).toMatch(/^HMAC key `k1` is 5 bytes; use at least 32 random bytes/);
  });

  it('places an unreadable key file at `key_file`', async () => {
    const text = yaml(...LEDGER_HEADER, 'receipts: { algorithm: ed25519, key_file: missing.pem, key_id: k1 }');

    const error = await configError(loadConfig({ text }, { env: {}, cwd: tempDir() }));

    expect(error.issues[0]).toMatchObject({ path: 'receipts.key_file', line: 7 });
    expect(error.issues[0]?.message).toMatch(/^Cannot read the key file `.*missing\.pem` \(`ENOENT`\)$/);
  });

  it('places a fuse setting the fuse refuses at its key', async () => {
    const text = yaml('fuses:', '  loop:', '    repeat_threshold: 3', '    window: 4');

    const error = await configError(loadConfig({ text }, { env: {} }));

    expect(error.issues[0]).toMatchObject({ path: 'fuses.loop.window', line: 4, column: 5 });
    expect(error.issues[0]?.message).toMatch(/`window` must be an integer of at least 8/);
  });
});

describe('loadConfig: receipts, runs and messages', () => {
  it('signs a receipt per terminal outcome into the JSONL file, UNKNOWN included', async () => {
    const dir = tempDir();
    const text = yaml(
      ...LEDGER_HEADER,
      'receipts: { algorithm: hmac-sha256, key_env: RECEIPT_KEY, key_id: k1, path: .hyphae/receipts.jsonl }',
      'tools:',
      '  pay: { side_effect_class: payment }',
    );
    const config = await loadConfig({ text, path: join(dir, 'hyphae.yaml') }, { env: { RECEIPT_KEY: KEY } });
    const pay = config.tool('pay', async (args: { crash?: boolean }) =>
      sideEffect(async () => {
        if (args.crash === true) throw new Error('gateway timeout');
        return 'paid';
      }),
    );

    await pay({}, { toolCallId: 'c1' });
    await pay({ crash: true }, { toolCallId: 'c2' }).catch(() => undefined);
    await config.close();

    const receipts = readFileSync(join(dir, '.hyphae', 'receipts.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(receipts.map((r) => [r.seq, r.action, r.outcome, r.keyId])).toEqual([
      [1, 'pay', 'COMPLETED', 'k1'],
      [2, 'pay', 'UNKNOWN', 'k1'],
    ]);
  });

  it('runs with the ledger scope, a session per run, snapshots and fresh fuse state', async () => {
    const text = yaml(
      'transition: { agent_id: a, policy_version: 1 }',
      'action_ledger: { storage: memory }',
      'run_snapshots: { storage: memory }',
      'tools:',
      '  lookup: { side_effect_class: read, protect: { entity_param: id, ttl: 1m, max_entries: 5 } }',
      'fuses: { loop: { repeat_threshold: 2 } }',
    );
    const config = await loadConfig({ text }, { env: {} });
    let bodies = 0;
    const lookup = config.tool('lookup', async ({ id }: { id: string }) => ({ id, n: ++bodies }));

    const runIds: string[] = [];
    for (const runId of ['r1', 'r2']) {
      await config.run({ threadId: 't1', runId }, async (run) => {
        runIds.push(run.session.id);
        run.snapshot?.record({ step: 'looked up' });
        await lookup({ id: 'a' }, { toolCallId: `${runId}-c1` });
      });
    }

    // Each run has its own cache (two bodies) and its own loop history (no refusal across runs).
    expect(bodies).toBe(2);
    expect(runIds).toEqual(['r1', 'r2']);
    const records = (await config.ledger?.list())?.records ?? [];
    expect(records.map((r) => r.scope).sort((a, b) => String(a.runId).localeCompare(String(b.runId)))).toEqual([
      { threadId: 't1', runId: 'r1' },
      { threadId: 't1', runId: 'r2' },
    ]);
    const history = (await config.snapshots?.history('r1')) ?? [];
    expect(history.map((s) => s.status)).toEqual(['running', 'running', 'completed']);
    expect(history.at(-1)?.state).toEqual({ step: 'looked up' });
    await config.close();
  });

  it('prepares messages: repairs, validates, then applies the history guard', async () => {
    const events: ConfigEvent[] = [];
    const config = await loadConfig(
      { text: yaml('transcript: {}', 'history_guard: { max_messages: 3 }') },
      { env: {}, onEvent: (event) => events.push(event) },
    );
    const call = { id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{}' } };
    const messages = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: null, tool_calls: [call] },
    ];

    const prepared = config.prepareMessages(messages);

    expect(prepared).toHaveLength(3);
    expect(prepared[2]).toMatchObject({ role: 'tool', tool_call_id: 'call_1' });
    expect(messages).toHaveLength(2);
    expect(events.map((e) => e.type)).toContain('transcript_repaired');
    expect(() => config.prepareMessages([...prepared, { role: 'user', content: 'more' }])).toThrow(
      HistoryTruncatedError,
    );
    await config.close();
  });

  it('closes what it opened, once however often it is asked', async () => {
    const dir = tempDir();
    const config = await loadConfig({ text: yaml(...LEDGER_HEADER), path: join(dir, 'hyphae.yaml') }, { env: {} });

    await config.ledger?.list();
    await Promise.all([config.close(), config.close()]);

    await expect(config.ledger?.list()).rejects.toThrow(/Ledger storage is unavailable/);
  });
});
