/**
 * The MCP pins and bulk actions in a real browser: Debian's `chromium` driven by `playwright-core`,
 * over real SQLite, Redis and PostgreSQL ledgers. With `HYPHAE_SCREENSHOTS=1` the SQLite run saves
 * the screenshots of docs/dashboard.md.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPinStore, definitionHash } from '../../src/adapters/mcp/pins.js';
import { type RunningDashboard, startDashboard } from '../../src/dashboard/start-dashboard.js';
import { createSqliteStorage } from '../../src/storage/sqlite.js';
import { makeTestRecord } from '../../src/testing/index.js';
import { type TestStore, testStores } from '../helpers/server-stores.js';
import { executablePath, REQUIRED, useChromium } from './chromium.js';
import { PIN_DEFINITIONS, type Seeded, seedLedger, seedPins } from './fixture.js';

// One place per test: a server store keeps every record of the file, and the counts below are exact.
const pinStores: TestStore[] = await testStores(['redis', 'postgres'], 'dashboard_browser_pins');
const bulkStores: TestStore[] = await testStores(['redis', 'postgres'], 'dashboard_browser_bulk');
const browser = useChromium();

afterAll(async () => {
  await Promise.allSettled([...pinStores, ...bulkStores].map((store) => store.dispose()));
});

function served(seeded: Seeded): Promise<RunningDashboard> {
  return startDashboard({
    host: '127.0.0.1',
    port: 0,
    ledgers: [{ name: 'action', ledger: seeded.ledger }],
    receipts: { sink: seeded.sink, keys: seeded.signer },
    allowAnonymous: true,
    allowedHosts: ['127.0.0.1', 'localhost'],
    pins: (ledger) => createPinStore(ledger),
  });
}

const sqlite = {
  name: 'sqlite',
  skip: false,
  open: () => {
    const dir = browser.tempDir('hyphae-dashboard-browser-bulk-');
    return createSqliteStorage({ path: join(dir, 'ledger.db') });
  },
};
const tables = (servers: readonly TestStore[]) => [sqlite, ...servers];

describe.skipIf(executablePath === undefined && !REQUIRED)('pins and bulk actions in chromium', () => {
  describe.each(tables(pinStores))('pins over $name', (store) => {
    it.skipIf(store.skip)('approves a quarantined tool definition after its confirm step', async () => {
      const seeded = await seedLedger(store.open());
      await seedPins(seeded.ledger);
      const dashboard = await served(seeded);
      const page = await browser.newPage();
      const screenshots = store.name === 'sqlite';
      try {
        await page.goto(`${dashboard.url}/`);
        await page.getByRole('link', { name: 'MCP pins' }).click();
        await expect.poll(() => page.locator('[data-count="quarantined"]').textContent()).toBe('1');
        expect(await page.locator('table[data-pin-diff]').textContent()).toContain('~/.ssh/id_rsa');
        const approve = page.locator('form[data-pin-action="approve"]');
        await approve.getByLabel('Actor').fill('ada');
        await approve.getByLabel('Reason').fill('the vendor changelog lists the new description');
        await browser.shot(page, 'pins', screenshots);
        await approve.getByRole('button', { name: 'Review…' }).click();
        expect(await page.locator('[data-consequence]').textContent()).toContain('next tools/list shows `forecast`');
        await browser.shot(page, 'pins-confirm', screenshots);
        await page.getByRole('button', { name: 'Confirm: approve' }).click();
        await expect.poll(() => page.locator('.flash.ok').first().textContent()).toContain('approved by ada');
        expect(await page.locator('[data-count="quarantined"]').textContent()).toBe('0');
        const pin = await createPinStore(seeded.ledger).get('weather', 'forecast');
        expect(pin?.hash).toBe(definitionHash(PIN_DEFINITIONS.forecastChanged));
        expect(pin?.review).toMatchObject({ by: 'ada', reason: 'the vendor changelog lists the new description' });
      } finally {
        await page.close();
        await dashboard.close();
        await seeded.ledger.close();
      }
    });
  });

  describe.each(tables(bulkStores))('bulk actions over $name', (store) => {
    it.skipIf(store.skip)(
      'previews a bulk release of a filter, then reports each transition: done, or refused',
      async () => {
        const seeded = await seedLedger(store.open());
        const now = Date.now();
        const payments = [1, 2].map((i) =>
          makeTestRecord({
            tool: 'send_payment',
            outcome: 'UNKNOWN',
            boundary: 'maybe_crossed',
            owner: null,
            leaseUntil: null,
            updatedAt: now - 30_000 * i,
          }),
        );
        for (const record of payments) await seeded.ledger.storage.create(record);
        const dashboard = await served(seeded);
        const page = await browser.newPage();
        const screenshots = store.name === 'sqlite';
        try {
          await page.goto(
            `${dashboard.url}/transitions?ledger=action&outcome=UNKNOWN&outcome=IN_FLIGHT&outcome=EXPIRED`,
          );
          await expect.poll(() => page.locator('tr[data-key]').count()).toBe(5);
          const bulk = page.locator('form[data-bulk]');
          await bulk.getByLabel('Action').selectOption('release_not_executed');
          await bulk.getByLabel('Actor').fill('ada');
          await bulk.getByLabel('Reason').fill('provider shows none of these charges');
          await bulk.getByRole('button', { name: 'Preview…' }).click();
          await expect.poll(() => page.locator('[data-bulk-count]').textContent()).toBe('5');
          expect(await page.locator('[data-bulk-summary]').textContent()).toContain(
            '4 will change; 1 will likely be refused',
          );
          expect(await page.locator(`tr[data-key="${seeded.held.key}"]`).textContent()).toContain('a lease is held');
          await browser.shot(page, 'bulk-preview', screenshots);
          await page.getByRole('button', { name: /Confirm: release as not executed × 5/ }).click();
          await expect.poll(() => page.locator('.flash').first().textContent()).toContain('4 done, 1 refused');
          expect(await page.locator(`tr[data-key="${seeded.held.key}"]`).getAttribute('data-result')).toBe('refused');
          await browser.shot(page, 'bulk-done', screenshots);
          for (const record of [seeded.unknown, seeded.expired, ...payments]) {
            expect((await seeded.ledger.get(record.key))?.operatorResolution).toMatchObject({
              by: 'ada',
              reason: 'provider shows none of these charges',
            });
          }
          expect((await seeded.ledger.get(seeded.held.key))?.operatorResolution).toBeNull();
        } finally {
          await page.close();
          await dashboard.close();
          await seeded.ledger.close();
        }
      },
    );
  });
});
