import { describe, expect, it } from 'vitest';
import { makeTestRecord } from '../../src/testing/index.js';
import { hyphae } from '../config/cli-runner.js';
import { useTempDir } from '../config/helpers.js';
import { paymentLedgerIn } from './payment-ledger.js';

const tempDir = useTempDir();

/** A SQLite ledger with one call run through the ledger with its checks' verdicts, and one older record. */
async function ledgerWithDecision(): Promise<{ dir: string; decided: string; older: string }> {
  const dir = tempDir();
  const { ledger, pay } = paymentLedgerIn(dir);
  await pay(
    { amount: 5 },
    {
      toolCallId: 'call_1',
      verdicts: [
        { check: 'fuses', verdict: 'allow' },
        { check: 'approval', verdict: 'allow', reason: 'approved' },
      ],
    },
  );
  const [decided] = (await ledger.list()).records;
  // A record as a version before the decision protocol wrote it: no `decision` field.
  const older = makeTestRecord({ agentId: 'agent', policyVersion: '1', leaseUntil: null, updatedAt: Date.now() });
  await ledger.storage.create(older);
  await ledger.close();
  return { dir, decided: decided?.key ?? '', older: older.key };
}

describe('hyphae transitions show: the decision and the effect state', () => {
  it('prints the effect state and every verdict of the decision written with the claim', async () => {
    const { dir, decided } = await ledgerWithDecision();

    const shown = hyphae(dir, ['transitions', 'show', decided]);

    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/effect +COMMITTED/);
    expect(shown.stdout).toMatch(/decision +allowed \(3 checks, digest [0-9a-f]{16}\)/);
    expect(shown.stdout).toMatch(/allow +fuses\n/);
    expect(shown.stdout).toMatch(/allow +approval: approved/);
    expect(shown.stdout).toMatch(/allow +ledger: fresh claim/);
  });

  it('gives the effect state and the decision in --json', async () => {
    const { dir, decided } = await ledgerWithDecision();

    const shown = hyphae(dir, ['transitions', 'show', decided, '--json']);
    const record = JSON.parse(shown.stdout) as { effectState: string; decision: unknown };

    expect(record.effectState).toBe('COMMITTED');
    expect(record.decision).toEqual({
      allowed: true,
      verdicts: [
        { check: 'fuses', verdict: 'allow' },
        { check: 'approval', verdict: 'allow', reason: 'approved' },
        { check: 'ledger', verdict: 'allow', reason: 'fresh claim' },
      ],
      deniedReasons: [],
      at: expect.any(Number),
    });
  });

  it('shows a record written before the protocol as INTENDED with no decision', async () => {
    const { dir, older } = await ledgerWithDecision();

    const shown = hyphae(dir, ['transitions', 'show', older]);

    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/effect +INTENDED/);
    expect(shown.stdout).toMatch(/decision +none recorded/);
  });
});
