import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { migrateMyceliumConfig } from '../../src/config/migrate/migrate-mycelium.js';
import { settingsOf, useTempDir, yaml } from './helpers.js';

const tempDir = useTempDir();
// Loading opens no connection: the addresses only have to be named.
const ENV = { REDIS_URL: 'redis://127.0.0.1:6379', DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test' };

/** Migrate `source`, write it, and open it with loadConfig; returns the settings and the notes. */
async function migrateAndLoad(source: string) {
  const migration = migrateMyceliumConfig(source);
  expect(migration.issues).toEqual([]);
  const dir = tempDir();
  writeFileSync(join(dir, 'hyphae.yaml'), migration.text);
  const config = await loadConfig('hyphae.yaml', { cwd: dir, env: ENV });
  try {
    return { settings: config.settings, notes: migration.notes, text: migration.text };
  } finally {
    await config.close();
  }
}

const added = (notes: readonly { kind: string; path: string }[]) =>
  notes.filter((note) => note.kind === 'added').map((note) => note.path);

describe('a ledger that lists tools it does not configure (mycelium-runtime’s v1.2 mode)', () => {
  it.each([
    ['file', 'action_ledger: {storage: file, path: ./l.json, tools: [send_payment, search_docs]}'],
    ['redis', 'action_ledger: {storage: redis, url_env: REDIS_URL, tools: [send_payment, search_docs]}'],
    ['postgres', 'action_ledger: {storage: postgres, dsn_env: DATABASE_URL, tools: [send_payment, search_docs]}'],
  ])('on %s: gets the class that never runs a call again, and loads', async (_, ledger) => {
    const { settings, notes, text } = await migrateAndLoad(yaml(ledger));
    for (const tool of ['send_payment', 'search_docs'])
      expect(settings.tools[tool]?.sideEffectClass).toBe('non_idempotent_mutate');
    expect(added(notes)).toEqual([
      'tools.send_payment.side_effect_class',
      'tools.search_docs.side_effect_class',
      'transition',
    ]);
    expect(notes.find((n) => n.path === 'tools.search_docs.side_effect_class')?.message).toContain(
      'set `read` if it only reads',
    );
    expect(text).toContain('# TODO: `read` for a tool that only reads');
  });

  it('classifies a listed tool whose entry has no class, and keeps the class of one that has it', async () => {
    const { settings } = await migrateAndLoad(
      yaml(
        'transition: {agent_id: a, policy_version: "1"}',
        'action_ledger: {storage: sqlite, path: l.db, tools: [pay, lookup]}',
        'tools:',
        '  pay: {bounded: {schema: {amount: {type: number}}}}',
        '  lookup: {side_effect_class: read}',
      ),
    );
    expect(settings.tools.pay?.sideEffectClass).toBe('non_idempotent_mutate');
    expect(settings.tools.lookup?.sideEffectClass).toBe('read');
  });

  it('adds an entry for a task the task ledger lists', async () => {
    const { settings, notes } = await migrateAndLoad(
      yaml('task_ledger: {storage: file, path: ./t.json, tasks: [process_invoice]}'),
    );
    expect(Object.keys(settings.tasks)).toEqual(['process_invoice']);
    expect(added(notes)).toContain('tasks.process_invoice');
  });
});

describe('a transition section without its identity', () => {
  it('gets a default policy version, with a note', async () => {
    const { settings, notes } = await migrateAndLoad(
      yaml(
        'transition: {agent_id: payments}',
        'action_ledger: {storage: memory, tools: [send_payment]}',
        'tools:',
        '  send_payment: {side_effect_class: payment}',
      ),
    );
    expect(settings.transition).toMatchObject({ agentId: 'payments', policyVersion: '1' });
    expect(added(notes)).toContain('transition.policy_version');
  });

  it('gets a TODO agent id, with a note', () => {
    const { text, notes, issues } = migrateMyceliumConfig(
      yaml('transition: {policy_version: "2026.07.1"}', 'action_ledger: {storage: memory, tools: []}'),
    );
    expect(issues).toEqual([]);
    expect(settingsOf(text).transition).toMatchObject({ agentId: 'TODO-agent-id', policyVersion: '2026.07.1' });
    expect(added(notes)).toContain('transition.agent_id');
  });
});

describe('field specs in mycelium-runtime’s spelling', () => {
  it('writes `min_length` and `max_length` as `minLength` and `maxLength`, at every level', () => {
    const { text, notes, issues } = migrateMyceliumConfig(
      yaml(
        'tools:',
        '  lookup:',
        '    side_effect_class: read',
        '    bounded:',
        '      schema:',
        '        name: {type: string, required: true, min_length: 1, max_length: 64}',
        '        tags: {type: array, items: {type: string, max_length: 8}}',
        '        owner: {type: object, properties: {id: {type: string, min_length: 2}}}',
      ),
    );
    expect(issues).toEqual([]);
    const schema = settingsOf(text).tools.lookup?.bounded?.schema as Record<string, Record<string, unknown>>;
    expect(schema.name).toMatchObject({ minLength: 1, maxLength: 64 });
    expect(schema.tags?.items).toMatchObject({ maxLength: 8 });
    expect(schema.owner?.properties).toMatchObject({ id: { minLength: 2 } });
    expect(notes.filter((n) => n.kind === 'converted').map((n) => n.path)).toEqual([
      'tools.lookup.bounded.schema.name.min_length',
      'tools.lookup.bounded.schema.name.max_length',
      'tools.lookup.bounded.schema.tags.items.max_length',
      'tools.lookup.bounded.schema.owner.properties.id.min_length',
    ]);
  });
});
