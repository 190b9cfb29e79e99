/**
 * The dashboard in a real browser: Debian's `chromium` driven by `playwright-core` (never a
 * browser download), over real SQLite, Redis and PostgreSQL ledgers served on an ephemeral port.
 * With `HYPHAE_SCREENSHOTS=1` the SQLite run saves the screenshots of docs/dashboard.md.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningDashboard, startDashboard } from '../../src/dashboard/start-dashboard.js';
import { createSqliteStorage } from '../../src/storage/sqlite.js';
import { makeTestRecord } from '../../src/testing/index.js';
import { type TestStore, testStores } from '../helpers/server-stores.js';
import { executablePath, REQUIRED, useChromium } from './chromium.js';
import { type Seeded, seedLedger } from './fixture.js';

const stores: TestStore[] = await testStores(['redis', 'postgres'], 'dashboard_browser');
const browser = useChromium();

afterAll(async () => {
  await Promise.allSettled(stores.map((store) => store.dispose()));
});

async function served(seeded: Seeded, options: { tokens?: boolean } = {}): Promise<RunningDashboard> {
  return startDashboard({
    host: '127.0.0.1',
    port: 0,
    ledgers: [{ name: 'action', ledger: seeded.ledger }],
    receipts: { sink: seeded.sink, keys: seeded.signer },
    ...(options.tokens === true
      ? { tokens: [{ token: 'a'.repeat(32), scope: 'act' as const }] }
      : { allowAnonymous: true }),
    allowedHosts: ['127.0.0.1', 'localhost'],
  });
}

const sqlite = {
  name: 'sqlite',
  skip: false,
  open: () => {
    const dir = browser.tempDir('hyphae-dashboard-browser-');
    return createSqliteStorage({ path: join(dir, 'ledger.db') });
  },
};

describe.skipIf(executablePath === undefined && !REQUIRED)('the dashboard in chromium', () => {
  describe.each([sqlite, ...stores])('over $name', (store) => {
    it.skipIf(store.skip)(
      'lists, filters, opens, releases with a reason and shows the receipt; refuses a held lease',
      async () => {
        const seeded = await seedLedger(store.open());
        const dashboard = await served(seeded);
        const page = await browser.newPage();
        const screenshots = store.name === 'sqlite';
        const consoleErrors: string[] = [];
        page.on('console', (message) => {
          if (message.type() === 'error') consoleErrors.push(message.text());
        });
        try {
          await page.goto(`${dashboard.url}/`);
          await expect.poll(() => page.locator('[data-count="stuck"]').first().textContent()).toBe('3');
          await browser.shot(page, 'overview', screenshots);

          await page.getByRole('link', { name: 'Transitions (action)' }).click();
          await expect.poll(() => page.locator('tr[data-key]').count()).toBe(5);
          await page.getByLabel('Key, ticket or external ref').fill('pi_42');
          await page.getByRole('button', { name: 'Filter' }).click();
          await expect.poll(() => page.locator('tr[data-key]').count()).toBe(1);
          await browser.shot(page, 'list', screenshots);

          await page.locator(`tr[data-key="${seeded.unknown.key}"] a`).click();
          await expect.poll(() => page.locator('h1').textContent()).toContain('send_payment');
          const decision = page.locator('.timeline li.k-decision');
          await expect.poll(() => decision.locator('strong').textContent()).toBe('Decision: allowed');
          expect(
            await decision
              .locator('li[data-verdict]')
              .evaluateAll((items) =>
                items.map((item) => `${item.getAttribute('data-verdict')} ${item.getAttribute('data-check')}`),
              ),
          ).toEqual(['allow fuses', 'allow approval', 'allow ledger']);
          expect(await decision.locator('li[data-check="approval"]').textContent()).toContain('approved by ada');
          expect(await page.locator('[data-effect]').textContent()).toBe('UNKNOWN');
          const form = page.locator('form[data-action="release_not_executed"]');
          await form.getByLabel('Actor').fill('ada');
          await form.getByLabel('Reason').fill('provider shows no charge for pi_42');
          await browser.shot(page, 'transition', screenshots);
          await form.getByRole('button', { name: 'Review…' }).click();
          expect(await page.locator('[data-consequence]').textContent()).toContain('The tool will run once more');
          await browser.shot(page, 'confirm', screenshots);
          await page.getByRole('button', { name: /Confirm/ }).click();
          await expect
            .poll(() => page.locator('.flash.ok').first().textContent())
            .toContain('release not executed by ada');
          expect(await page.locator('table[data-receipts]').textContent()).toContain('NOT_EXECUTED');
          expect(await page.locator('table[data-receipts]').textContent()).toContain(
            'ada: provider shows no charge for pi_42',
          );
          expect(await page.locator('[data-chain="ok"]').first().textContent()).toContain('Chain verified: 3 receipts');
          await browser.shot(page, 'released', screenshots);
          expect((await seeded.ledger.get(seeded.unknown.key))?.operatorResolution?.by).toBe('ada');

          await page.goto(`${dashboard.url}/t/${seeded.held.key}`);
          const held = page.locator('form[data-action="release_not_executed"]');
          await held.getByLabel('Actor').fill('ada');
          await held.getByLabel('Reason').fill('looks stuck');
          await held.getByRole('button', { name: 'Review…' }).click();
          await page.getByRole('button', { name: /Confirm/ }).click();
          await expect.poll(() => page.locator('.flash.bad').first().textContent()).toContain('a lease is held by');
          await browser.shot(page, 'refused', screenshots);

          // Live: a transition that gets stuck while the overview is open appears without a reload.
          await page.goto(`${dashboard.url}/`);
          await expect.poll(() => page.locator('[data-count="stuck"]').first().textContent()).toBe('3');
          const navigations: string[] = [];
          page.on('framenavigated', (frame) => navigations.push(frame.url()));
          await seeded.ledger.storage.create(
            makeTestRecord({
              tool: 'late_refund',
              outcome: 'BLOCKED',
              owner: null,
              leaseUntil: null,
              updatedAt: Date.now(),
            }),
          );
          await expect
            .poll(() => page.locator('[data-count="stuck"]').first().textContent(), { timeout: 20_000 })
            .toBe('4');
          expect(await page.locator('#overview').textContent()).toContain('late_refund');
          expect(navigations).toEqual([]);
          // The pages run under their CSP without a single violation (no inline script or style).
          expect(consoleErrors.filter((text) => /Content Security Policy/i.test(text))).toEqual([]);
        } finally {
          await page.close();
          await dashboard.close();
          await seeded.ledger.close();
        }
      },
    );
  });

  it('refuses a request without a token, and lets a token in', async () => {
    const seeded = await seedLedger(sqlite.open());
    const dashboard = await served(seeded, { tokens: true });
    const page = await browser.newPage();
    try {
      const response = await page.request.get(`${dashboard.url}/t/${seeded.unknown.key}`, { maxRedirects: 0 });
      expect(response.status()).toBe(303);
      await page.goto(`${dashboard.url}/`);
      expect(page.url()).toBe(`${dashboard.url}/login`);
      await page.getByLabel('Token').fill('not-the-token');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => page.locator('.flash.bad').textContent()).toContain('not accepted');
      await browser.shot(page, 'login', true);
      await page.getByLabel('Token').fill('a'.repeat(32));
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => page.locator('h1').textContent()).toBe('Overview');
    } finally {
      await page.close();
      await dashboard.close();
      await seeded.ledger.close();
    }
  });
});
