import { describe, expect, it } from 'vitest';
import { hyphae } from '../config/cli-runner.js';
import { useTempDir } from '../config/helpers.js';
import { paymentLedgerIn } from './payment-ledger.js';

const tempDir = useTempDir();

/** A SQLite ledger holding one call refused by its checks (twice) and one that ran. */
async function ledgerWithDenial(): Promise<{ dir: string; denial: string; ran: string }> {
  const dir = tempDir();
  const { ledger, pay } = paymentLedgerIn(dir);
  const deny = [{ check: 'fuses', verdict: 'deny' as const, reason: 'permission: permission_denied' }];
  for (let i = 0; i < 2; i++) await pay({ amount: 5 }, { toolCallId: 'call_1', verdicts: deny }).catch(() => undefined);
  await pay({ amount: 7 }, { toolCallId: 'call_2' });
  const [denial] = (await ledger.list({ kind: 'denial' })).records;
  const [ran] = (await ledger.list({ kind: 'tool' })).records;
  await ledger.close();
  return { dir, denial: denial?.key ?? '', ran: ran?.key ?? '' };
}

describe('hyphae transitions: denial records', () => {
  it('lists denials with --denials and --kind, and never as stuck', async () => {
    const { dir, denial, ran } = await ledgerWithDenial();

    const all = hyphae(dir, ['transitions', 'list']);
    const denials = hyphae(dir, ['transitions', 'list', '--denials', '--json']);
    const byKind = hyphae(dir, ['transitions', 'list', '--kind', 'denial']);
    const stuck = hyphae(dir, ['transitions', 'list', '--stuck']);
    const bad = hyphae(dir, ['transitions', 'list', '--kind', 'refusal']);

    expect(all.code).toBe(0);
    expect(all.stdout).toContain(denial);
    expect(all.stdout).toContain(ran);
    expect(all.stdout).toMatch(new RegExp(`${denial} +send_payment +denial +BLOCKED +not_crossed +2 `));
    const listed = JSON.parse(denials.stdout) as { key: string; kind: string; effectState: string; stuck: boolean }[];
    expect(listed.map((r) => [r.key, r.kind, r.effectState, r.stuck])).toEqual([[denial, 'denial', 'ABORTED', false]]);
    expect(byKind.stdout).toContain(denial);
    expect(byKind.stdout).not.toContain(ran);
    expect(stuck.stdout).toContain('No transitions match');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('Unknown kind `refusal`');
  });

  it('shows one denial, and refuses to release it', async () => {
    const { dir, denial } = await ledgerWithDenial();

    const shown = hyphae(dir, ['transitions', 'show', denial]);
    const release = hyphae(dir, [
      'transitions',
      'release',
      denial,
      '--not-executed',
      '--by',
      'ops',
      '--reason',
      'retry it',
    ]);

    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/tool +send_payment \(denial\)/);
    expect(shown.stdout).toMatch(/effect +ABORTED/);
    expect(shown.stdout).toMatch(/decision +denied: permission: permission_denied/);
    expect(shown.stdout).toMatch(/refused +[0-9a-f]{64} \(never claimed; 2 refusal\(s\) counted\)/);
    expect(release.code).toBe(1);
    expect(release.stderr).toContain('it is a denial record');
    expect(hyphae(dir, ['transitions', 'show', denial, '--json']).stdout).toContain('"operatorResolution": null');
  });
});
