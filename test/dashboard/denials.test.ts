import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TransitionRecord } from '../../src/index.js';
import { createSqliteStorage } from '../../src/storage/sqlite.js';
import { clientOf, dashboardOf, type Seeded, seedLedger } from './fixture.js';

const dirs: string[] = [];
const opened: Seeded[] = [];
afterEach(async () => {
  await Promise.allSettled(opened.splice(0).map((seeded) => seeded.ledger.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
});

/** The seeded SQLite ledger plus one call its checks refused. */
async function withDenial(): Promise<{ s: Seeded; denial: TransitionRecord }> {
  const dir = mkdtempSync(join(tmpdir(), 'hyphae-dashboard-'));
  dirs.push(dir);
  const s = await seedLedger(createSqliteStorage({ path: join(dir, 'ledger.db') }));
  opened.push(s);
  const wipe = s.ledger.tool({ name: 'wipe_disk', sideEffectClass: 'irreversible' }, async () => 'wiped');
  await wipe(
    { disk: 'sda' },
    {
      toolCallId: 'call_wipe',
      verdicts: [{ check: 'fuses', verdict: 'deny', reason: 'permission: permission_denied' }],
    },
  ).catch(() => undefined);
  const [denial] = (await s.ledger.list({ kind: 'denial' })).records;
  if (denial === undefined) throw new Error('no denial recorded');
  return { s, denial };
}

describe('the dashboard shows denial records, read-only', () => {
  it('lists them under the kind filter and never as stuck', async () => {
    const { s, denial } = await withDenial();
    const client = clientOf(dashboardOf(s));

    const home = await (await client.get('/')).text();
    const listed = await (await client.get('/transitions?ledger=action&kind=denial')).text();
    const bad = await (await client.get('/transitions?ledger=action&kind=refusal')).text();

    const stuck = home.slice(home.indexOf('Stuck:'), home.indexOf('By outcome'));
    expect(stuck).not.toContain(denial.key.slice(0, 16));
    expect(stuck).toContain('<span data-count="stuck">3</span>');
    expect(listed).toContain(`<tr data-key="${denial.key}" data-kind="denial">`);
    expect(listed).not.toContain(`data-key="${s.blocked.key}"`);
    expect(listed).toContain('<option value="denial" selected>denial</option>');
    expect(bad).toContain('Unknown kind `refusal`');
  });

  it('shows one with its denied decision and offers no action; a forged release is refused', async () => {
    const { s, denial } = await withDenial();
    const client = clientOf(dashboardOf(s));
    await client.get(`/t/${s.unknown.key}`);
    const csrf = client.csrf();

    const page = await (await client.get(`/t/${denial.key}`)).text();
    const forged = await client.post(`/t/${denial.key}/act`, {
      _csrf: csrf,
      action: 'release_not_executed',
      by: 'ada',
      reason: 'run it anyway',
      confirm: 'yes',
    });

    expect(page).toContain('wipe_disk (denial)');
    expect(page).toContain('data-effect="ABORTED"');
    expect(page).toContain('denied: permission: permission_denied');
    expect(page).toContain('data-denial');
    expect(page).not.toContain('data-action=');
    expect(forged.status).toBe(409);
    expect(await forged.text()).toContain('it is a denial record');
    expect(await s.ledger.get(denial.key)).toEqual(denial);
  });
});
