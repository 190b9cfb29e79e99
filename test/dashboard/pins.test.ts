/**
 * The MCP pins on the dashboard: the quarantined definition with what changed, and its review
 * (approve or reject) through the pin store, behind the act scope, the CSRF secret and a confirm step.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { createPinStore, definitionHash } from '../../src/adapters/mcp/pins.js';
import { createDashboardApp } from '../../src/dashboard/create-dashboard-app.js';
import { createSqliteStorage } from '../../src/storage/sqlite.js';
import { clientOf, dashboardOf, PIN_DEFINITIONS, type Seeded, seedLedger, seedPins } from './fixture.js';

const dirs: string[] = [];
const opened: Seeded[] = [];
afterEach(async () => {
  await Promise.allSettled(opened.splice(0).map((seeded) => seeded.ledger.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
});

async function seeded(): Promise<Seeded> {
  const dir = mkdtempSync(join(tmpdir(), 'hyphae-dashboard-pins-'));
  dirs.push(dir);
  const result = await seedLedger(createSqliteStorage({ path: join(dir, 'ledger.db') }));
  opened.push(result);
  await seedPins(result.ledger);
  return result;
}

const NEW_HASH = definitionHash(PIN_DEFINITIONS.forecastChanged);
const OLD_HASH = definitionHash(PIN_DEFINITIONS.forecast);
const review = (csrf: string, action: string, extra: Record<string, string> = {}) => ({
  _csrf: csrf,
  action,
  ledger: 'action',
  server: 'weather',
  tool: 'forecast',
  hash: NEW_HASH,
  by: 'ada',
  reason: 'vendor changelog says so',
  ...extra,
});

describe('MCP pins on the dashboard', () => {
  it('lists every pin and shows the quarantined definition with the fields that changed', async () => {
    const s = await seeded();
    const body = await (await clientOf(dashboardOf(s)).get('/pins')).text();
    expect(body).toContain('<span data-count="quarantined">1</span> waiting for review, 2 pinned');
    expect(body).toContain('data-pin-row="weather/echo"');
    expect(body).toContain('quarantined: review pending');
    const card = body.slice(body.indexOf('data-pin="weather/forecast"'));
    expect(card).toContain('Changed: <code>description</code>.');
    expect(card).toContain('~/.ssh/id_rsa');
    expect(card).toContain('data-pin-action="approve"');
    expect(card).toContain('data-pin-action="reject"');
  });

  it('approves after a confirm step that says what will happen, recording the actor and reason', async () => {
    const s = await seeded();
    const client = clientOf(dashboardOf(s));
    await client.get('/pins');
    const confirm = await client.post('/pins/confirm', review(client.csrf(), 'approve'));
    expect(confirm.status).toBe(200);
    const text = await confirm.text();
    expect(text).toContain('next tools/list shows `forecast` again, with this definition');
    expect((await createPinStore(s.ledger).get('weather', 'forecast'))?.hash).toBe(OLD_HASH);

    const done = await client.post('/pins/act', review(client.csrf(), 'approve', { confirm: 'yes' }));
    expect(done.status).toBe(303);
    const pin = await createPinStore(s.ledger).get('weather', 'forecast');
    expect(pin).toMatchObject({ hash: NEW_HASH, pending: null, approvedBy: 'ada' });
    expect(pin?.review).toMatchObject({ action: 'approved', by: 'ada', reason: 'vendor changelog says so' });
    const after = await (await client.get(done.headers.get('location') ?? '/pins')).text();
    expect(after).toContain('approved by ada');
    expect(after).toContain('<span data-count="quarantined">0</span>');
  });

  it('rejects: the old pin stays and the proxy keeps the definition quarantined', async () => {
    const s = await seeded();
    const client = clientOf(dashboardOf(s));
    await client.get('/pins');
    const confirm = await (await client.post('/pins/confirm', review(client.csrf(), 'reject'))).text();
    expect(confirm).toContain('The old pin stays');
    const done = await client.post('/pins/act', review(client.csrf(), 'reject', { confirm: 'yes' }));
    expect(done.status).toBe(303);
    const pins = createPinStore(s.ledger);
    expect((await pins.get('weather', 'forecast'))?.hash).toBe(OLD_HASH);
    expect(await pins.check('weather', PIN_DEFINITIONS.forecastChanged)).toBe('rejected');
    expect(await (await client.get('/pins')).text()).toContain('rejected by ada: vendor changelog says so');
  });

  it('refuses a review of a definition that changed again, without the confirm step, or without a reason', async () => {
    const s = await seeded();
    const client = clientOf(dashboardOf(s));
    await client.get('/pins');
    const stale = await client.post('/pins/act', review(client.csrf(), 'approve', { confirm: 'yes', hash: OLD_HASH }));
    expect(stale.status).toBe(409);
    expect(await stale.text()).toContain('changed again since it was reviewed');
    const unconfirmed = await client.post('/pins/act', review(client.csrf(), 'approve'));
    expect(unconfirmed.status).toBe(409);
    const noReason = await client.post('/pins/confirm', review(client.csrf(), 'approve', { reason: ' ' }));
    expect(noReason.status).toBe(400);
    expect(await noReason.text()).toContain('the reason is required');
    expect((await createPinStore(s.ledger).get('weather', 'forecast'))?.pending?.hash).toBe(NEW_HASH);
  });

  it('refuses a review without the CSRF secret, with a read token, and in read-only mode', async () => {
    const s = await seeded();
    const client = clientOf(dashboardOf(s));
    await client.get('/pins');
    const forged = await client.post('/pins/act', review('not-the-secret', 'approve', { confirm: 'yes' }));
    expect(forged.status).toBe(403);
    expect(await forged.text()).toContain('CSRF check failed');

    const reader = clientOf(
      dashboardOf(s, { allowAnonymous: false, tokens: [{ token: 'r'.repeat(32), scope: 'read' }] }),
    );
    const bearer = { authorization: `Bearer ${'r'.repeat(32)}` };
    const readPage = await (await reader.get('/pins', bearer)).text();
    expect(readPage).toContain('Your token may read but not act.');
    expect(readPage).not.toContain('data-pin-action');
    expect((await reader.post('/pins/act', review('', 'approve', { confirm: 'yes' }), bearer)).status).toBe(403);

    const readOnly = clientOf(dashboardOf(s, { readOnly: true }));
    const page = await (await readOnly.get('/pins')).text();
    expect(page).toContain('Read-only: actions are refused.');
    expect(page).not.toContain('data-pin-action');
    const refused = await readOnly.post('/pins/act', review(readOnly.csrf(), 'approve', { confirm: 'yes' }));
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('read-only');
    expect((await createPinStore(s.ledger).get('weather', 'forecast'))?.hash).toBe(OLD_HASH);
  });
});

describe('MCP pins on a dashboard started without a pin store', () => {
  it('says it has none to show, and refuses a review', async () => {
    const s = await seeded();
    const app = createDashboardApp({
      ledgers: [{ name: 'action', ledger: s.ledger }],
      allowAnonymous: true,
    }) as unknown as Hono;
    const client = clientOf(app);

    const page = await client.get('/pins');
    expect(page.status).toBe(404);
    expect(await page.text()).toContain('started without a pin store');
    await client.get(`/t/${s.unknown.key}`);
    const refused = await client.post('/pins/act', review(client.csrf(), 'approve', { confirm: 'yes' }));
    expect(refused.status).toBe(404);
    expect((await createPinStore(s.ledger).get('weather', 'forecast'))?.pending?.hash).toBe(NEW_HASH);
  });
});
