/**
 * The production profile refuses, by one rule, every ledger store whose records would not outlive
 * the process: it reads the opened store's `capabilities.durable`, whatever its kind.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/errors.js';
import { loadConfig } from '../../src/config/load-config.js';
import { yaml } from './helpers.js';

// Outside the temp directory, and never created: the store connects on its first operation only.
const DURABLE = ['  storage: sqlite', '  path: /var/lib/hyphae-never-created/ledger.db'];

async function refusal(text: string): Promise<ConfigError> {
  const error = await loadConfig({ text, path: 'hyphae.yaml' }, { env: {} }).then(
    (config) => config.close(),
    (caught: unknown) => caught,
  );
  if (!(error instanceof ConfigError)) throw new Error(`expected a ConfigError, got ${String(error)}`);
  return error;
}

const header = ['profile: production', 'transition: { agent_id: a, policy_version: 1 }', 'action_ledger:'];
const refund = ['tools:', '  refund: { side_effect_class: idempotent_write }'];

describe('production profile: stores that cannot outlive the process', () => {
  it('refuses the memory store for a side-effecting tool, at its line', async () => {
    const error = await refusal(yaml(...header, '  storage: memory', ...refund));

    expect(error.issues).toEqual([
      {
        path: 'action_ledger.storage',
        line: 4,
        column: 12,
        message:
          'The production profile refuses a store whose records do not outlive the process for side-effecting tools (`refund`): `memory` is not durable; use a SQLite file outside the temp directory, `redis` or `postgres`',
      },
    ]);
  });

  it('refuses SQLite `:memory:` by the same rule', async () => {
    const error = await refusal(yaml(...header, '  storage: sqlite', "  path: ':memory:'", ...refund));

    expect(error.issues).toEqual([
      expect.objectContaining({
        path: 'action_ledger.storage',
        message: expect.stringMatching(/`sqlite :memory:` is not durable/),
      }),
    ]);
  });

  it('refuses a SQLite file under the temp directory by the same rule', async () => {
    const path = join(tmpdir(), 'hyphae-production-temp', 'ledger.db');
    const error = await refusal(yaml(...header, '  storage: sqlite', `  path: ${path}`, ...refund));

    expect(error.issues).toEqual([
      expect.objectContaining({ path: 'action_ledger.storage', message: expect.stringMatching(/is not durable/) }),
    ]);
  });

  it('refuses a store shared with side-effecting tasks, and a task ledger of its own', async () => {
    const shared = await refusal(yaml(...header, '  storage: memory', 'task_ledger: {}', 'tasks:', '  invoice: {}'));
    const own = await refusal(
      yaml(...header, ...DURABLE, '  tools: []', 'task_ledger: { storage: memory }', 'tasks:', '  invoice: {}'),
    );

    expect(shared.issues[0]).toMatchObject({ path: 'action_ledger.storage' });
    expect(shared.issues[0]?.message).toMatch(/side-effecting tasks \(`invoice`\)/);
    expect(own.issues).toEqual([expect.objectContaining({ path: 'task_ledger.storage', line: 7 })]);
  });

  it('opens the memory store when every ledgered tool reads, and a durable SQLite file', async () => {
    const reads = await loadConfig(
      { text: yaml(...header, '  storage: memory', 'tools:', '  lookup: { side_effect_class: read }') },
      { env: {} },
    );
    const durable = await loadConfig({ text: yaml(...header, ...DURABLE, ...refund) }, { env: {} });

    expect(reads.ledger).toBeDefined();
    expect(durable.ledger).toBeDefined();
    await Promise.all([reads.close(), durable.close()]);
  });
});
