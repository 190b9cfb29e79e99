/**
 * Bulk actions on the dashboard: a filter's selection, an impact preview, then each transition
 * through the ledger's operator API with its own receipt; refusals reported without stopping the rest.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ActionKind } from '../../src/dashboard/actions.js';
import { bulkImpact } from '../../src/dashboard/bulk.js';
import type { TransitionRecord } from '../../src/records/transition-record.js';
import { createSqliteStorage } from '../../src/storage/sqlite.js';
import { makeTestRecord } from '../../src/testing/index.js';
import { clientOf, dashboardOf, type Seeded, seedLedger } from './fixture.js';

const dirs: string[] = [];
const opened: Seeded[] = [];
afterEach(async () => {
  await Promise.allSettled(opened.splice(0).map((seeded) => seeded.ledger.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
});

/** The fixture's ledger plus three more UNKNOWN calls of `send_payment`. */
async function seeded(): Promise<Seeded & { readonly payments: readonly TransitionRecord[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'hyphae-dashboard-bulk-'));
  dirs.push(dir);
  const result = await seedLedger(createSqliteStorage({ path: join(dir, 'ledger.db') }));
  opened.push(result);
  const now = Date.now();
  const payments = [1, 2, 3].map((i) =>
    makeTestRecord({
      tool: 'send_payment',
      outcome: 'UNKNOWN',
      boundary: 'maybe_crossed',
      owner: null,
      leaseUntil: null,
      updatedAt: now - 10_000 * i,
    }),
  );
  for (const record of payments) await result.ledger.storage.create(record);
  return { ...result, payments: [result.unknown, ...payments] };
}

const keysOf = (text: string, attribute = 'data-key') =>
  [...text.matchAll(new RegExp(`${attribute}="([0-9a-f]+)"`, 'g'))].map((m) => m[1] as string);
const hidden = (text: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(text)?.[1] ?? '';

describe('bulk actions', () => {
  it('previews every UNKNOWN call of a tool with what will happen to each, and changes nothing yet', async () => {
    const s = await seeded();
    const client = clientOf(dashboardOf(s));
    const list = await (await client.get('/transitions?ledger=action&outcome=UNKNOWN&tool=send_payment')).text();
    expect(list).toContain('data-bulk');
    const preview = await client.post('/bulk/preview', {
      _csrf: client.csrf(),
      ledger: 'action',
      outcome: 'UNKNOWN',
      tool: 'send_payment',
      action: 'release_not_executed',
      by: 'ada',
      reason: 'provider shows no charges',
    });
    expect(preview.status).toBe(200);
    const text = await preview.text();
    expect(text).toContain('<span data-bulk-count>4</span> transitions');
    expect(text).toContain('4 will change; 0 will likely be refused');
    expect(new Set(keysOf(text))).toEqual(new Set(s.payments.map((record) => record.key)));
    expect(text.match(/The tool will run once more/g)).toHaveLength(4);
    expect(hidden(text, 'keys').split(',')).toHaveLength(4);
    for (const record of s.payments) expect((await s.ledger.get(record.key))?.operatorResolution).toBeNull();
  });

  it('releases each one through the ledger with the actor, the reason and a receipt of its own', async () => {
    const s = await seeded();
    const client = clientOf(dashboardOf(s));
    await client.get('/transitions?outcome=UNKNOWN');
    const form = { _csrf: client.csrf(), ledger: 'action', action: 'release_completed', by: 'ada', reason: 'refunded' };
    const preview = await (
      await client.post('/bulk/preview', { ...form, outcome: 'UNKNOWN', result: '{"refunded":true}' })
    ).text();
    expect(preview.match(/Result recorded: the next call returns it/g)).toHaveLength(4);
    const done = await client.post('/bulk/act', {
      ...form,
      result: '{"refunded":true}',
      keys: hidden(preview, 'keys'),
      confirm: 'yes',
    });
    expect(done.status).toBe(200);
    const report = await done.text();
    expect(report).toContain('4 done, 0 refused');
    for (const record of s.payments) {
      const after = await s.ledger.get(record.key);
      expect(after).toMatchObject({ outcome: 'COMPLETED', result: { refunded: true } });
      expect(after?.operatorResolution).toMatchObject({ verified: 'completed', by: 'ada', reason: 'refunded' });
      expect(after?.receiptRef).toMatch(/^(?!pending)/);
      expect(report).toContain(`<code>${after?.receiptRef}</code>`);
    }
    const releases: string[] = [];
    for await (const receipt of s.sink.readAll()) {
      if (receipt.actionKind === 'release') releases.push(receipt.transitionKey);
    }
    expect(releases.sort()).toEqual(s.payments.map((record) => record.key).sort());
  });

  it('reports a held lease, an already resolved transition and an unknown key, and does the rest', async () => {
    const s = await seeded();
    const client = clientOf(dashboardOf(s));
    await client.get('/transitions?outcome=IN_FLIGHT&outcome=EXPIRED');
    const form = { _csrf: client.csrf(), ledger: 'action', action: 'release_not_executed', by: 'ada', reason: 'stuck' };
    const preview = await (await client.post('/bulk/preview', { ...form, outcome: 'IN_FLIGHT,EXPIRED' })).text();
    expect(keysOf(preview, 'data-key').sort()).toEqual([s.expired.key, s.held.key].sort());
    expect(preview).toContain('Will be refused: a lease is held by `host-b:22:bbbb#3`');
    expect(preview).toContain('1 will change; 1 will likely be refused');
    const keys = [s.held.key, s.completed.key, 'f'.repeat(64), s.expired.key].join(',');
    const report = await (await client.post('/bulk/act', { ...form, keys, confirm: 'yes' })).text();
    expect(report).toContain('1 done, 3 refused');
    const row = (key: string) => report.slice(report.indexOf(`data-key="${key}"`)).split('</tr>')[0] ?? '';
    expect(row(s.held.key)).toContain('a lease is held');
    expect(row(s.completed.key)).toContain('ledger_already_resolved');
    expect(row('f'.repeat(64))).toContain('ledger_not_found');
    expect(row(s.expired.key)).toContain('data-result="done"');
    expect((await s.ledger.get(s.expired.key))?.operatorResolution?.by).toBe('ada');
    expect((await s.ledger.get(s.held.key))?.operatorResolution).toBeNull();
  });

  it('takes at most the bound: the preview says more matched, and a larger batch is refused', async () => {
    const s = await seeded();
    const client = clientOf(dashboardOf(s, { limits: { bulkLimit: 2 } }));
    await client.get('/transitions');
    const form = { _csrf: client.csrf(), ledger: 'action', action: 'release_not_executed', by: 'ada', reason: 'x' };
    const preview = await (await client.post('/bulk/preview', { ...form, outcome: 'UNKNOWN' })).text();
    expect(preview).toContain('<span data-bulk-count>2</span>');
    expect(preview).toContain('only the newest 2 are here');
    const keys = s.payments.map((record) => record.key).join(',');
    const refused = await client.post('/bulk/act', { ...form, keys, confirm: 'yes' });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('at most 2 transitions, got 4');
    for (const record of s.payments) expect((await s.ledger.get(record.key))?.operatorResolution).toBeNull();
  });

  it('refuses without the act scope, the CSRF secret or the confirm step, and in read-only mode', async () => {
    const s = await seeded();
    const keys = s.payments.map((record) => record.key).join(',');
    const form = { ledger: 'action', action: 'release_not_executed', by: 'ada', reason: 'x', keys, confirm: 'yes' };
    const client = clientOf(dashboardOf(s));
    await client.get('/transitions');
    expect((await client.post('/bulk/act', { ...form, _csrf: 'forged' })).status).toBe(403);
    expect((await client.post('/bulk/act', { ...form, _csrf: client.csrf(), confirm: '' })).status).toBe(409);

    const readOnly = clientOf(dashboardOf(s, { readOnly: true }));
    expect(await (await readOnly.get('/transitions?outcome=UNKNOWN')).text()).not.toContain('data-bulk');
    const refused = await readOnly.post('/bulk/preview', { ...form, _csrf: readOnly.csrf() });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('read-only');

    const token = 'r'.repeat(32);
    const reader = clientOf(dashboardOf(s, { allowAnonymous: false, tokens: [{ token, scope: 'read' }] }));
    const bearer = { authorization: `Bearer ${token}` };
    expect(await (await reader.get('/transitions?outcome=UNKNOWN', bearer)).text()).not.toContain('data-bulk');
    expect((await reader.post('/bulk/act', form, bearer)).status).toBe(403);
    for (const record of s.payments) expect((await s.ledger.get(record.key))?.operatorResolution).toBeNull();
  });
});

describe('the impact preview of a release', () => {
  const now = 1_800_000_000_000;
  const claim = (heartbeatAgo: number, sideEffectClass: TransitionRecord['sideEffectClass']) =>
    makeTestRecord({
      sideEffectClass,
      owner: 'host-a:1:a#1',
      leaseUntil: now - heartbeatAgo + 300_000,
      lastHeartbeatAt: now - heartbeatAgo,
      updatedAt: now - heartbeatAgo,
    });

  it('says a consequential claim whose worker may be alive will be refused, and one presumed dead will run again', () => {
    const fresh = bulkImpact(ActionKind.release_not_executed, claim(400_000, 'non_idempotent_mutate'), now);
    const stale = bulkImpact(ActionKind.release_not_executed, claim(700_000, 'non_idempotent_mutate'), now);
    const read = bulkImpact(ActionKind.release_not_executed, claim(400_000, 'read'), now);

    expect(fresh).toMatchObject({ applies: false });
    expect(fresh.effect).toContain('may be alive (last heartbeat 400 s ago): mark it dead first');
    expect(stale).toMatchObject({ applies: true });
    expect(stale.effect).toContain('The tool will run once more');
    expect(read).toMatchObject({ applies: true });
  });
});
