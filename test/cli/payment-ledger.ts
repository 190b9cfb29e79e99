/**
 * A folder holding a `hyphae.yaml` whose action ledger is a SQLite file, and that ledger opened with
 * its `send_payment` tool, for the CLI tests that read records the CLI did not write.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLedger } from '../../src/ledger/create-ledger.js';
import { createSqliteStorage } from '../../src/storage/sqlite.js';
import { yaml } from '../config/helpers.js';

/** Write the config into `dir` and open its ledger; `pay` is its `send_payment` tool. */
export function paymentLedgerIn(dir: string) {
  writeFileSync(
    join(dir, 'hyphae.yaml'),
    yaml(
      'transition: { agent_id: agent, policy_version: 1 }',
      'action_ledger: { storage: sqlite, path: ledger.db }',
      'tools:',
      '  send_payment: { side_effect_class: payment }',
    ),
  );
  const ledger = createLedger({
    storage: createSqliteStorage({ path: join(dir, 'ledger.db') }),
    agentId: 'agent',
    policyVersion: '1',
  });
  const pay = ledger.tool({ name: 'send_payment', sideEffectClass: 'payment' }, async () => ({ paid: true }));
  return { ledger, pay };
}
