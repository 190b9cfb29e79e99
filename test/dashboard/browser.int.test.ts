/**
 * The dashboard in a real browser: Debian's `chromium` driven by `playwright-core` (never a
 * browser download), over real SQLite, Redis and PostgreSQL ledgers served on an ephemeral port.
 * With `HYPHAE_SCREENSHOTS=1` the SQLite run saves the screenshots of docs/dashboard.md.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningDashboard, startDashboard } from '../../src/dashboard/start-dashboard.js';
import { createSqliteStorage } from '../../src/storage/sqlite.js';
import { makeTestRecord } from '../../src/testing/index.js';
import { type TestStore, testStores } from '../helpers/server-stores.js';
import { type Seeded, seedLedger } from './fixture.js';

const REQUIRED = process.env.REQUIRE_INTEGRATION === '1';
const SHOTS =
  process.env.HYPHAE_SCREENSHOTS === '1' ? fileURLToPath(new URL('../../docs/dashboard/', import.meta.url)) : undefined;

function chromiumPath(): string | undefined {
  try {
    return execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

const executablePath = chromiumPath();
const stores: TestStore[] = await testStores(['redis', 'postgres'], 'dashboard_browser');
const dirs: string[] = [];
let context: BrowserContext | undefined;

beforeAll(async () => {
  if (executablePath === undefined) {
    if (REQUIRED)
      throw new Error('chromium is not installed (apt-get install -y chromium); REQUIRE_INTEGRATION=1 needs it');
    return;
  }
  const profile = mkdtempSync(join(tmpdir(), 'hyphae-chromium-'));
  dirs.push(profile);
  context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [
      '--no-sandbox',
      '--headless',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
});

afterAll(async () => {
  await context?.close();
  await Promise.allSettled(stores.map((store) => store.dispose()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function shot(page: Page, name: string, enabled: boolean): Promise<void> {
  if (SHOTS !== undefined && enabled) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

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
    const dir = mkdtempSync(join(tmpdir(), 'hyphae-dashboard-browser-'));
    dirs.push(dir);
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
        const page = await (context as BrowserContext).newPage();
        const screenshots = store.name === 'sqlite';
        const consoleErrors: string[] = [];
        page.on('console', (message) => {
          if (message.type() === 'error') consoleErrors.push(message.text());
        });
        try {
          await page.goto(`${dashboard.url}/`);
          await expect.poll(() => page.locator('[data-count="stuck"]').first().textContent()).toBe('3');
          await shot(page, 'overview', screenshots);

          await page.getByRole('link', { name: 'Transitions (action)' }).click();
          await expect.poll(() => page.locator('tr[data-key]').count()).toBe(5);
          await page.getByLabel('Key, ticket or external ref').fill('pi_42');
          await page.getByRole('button', { name: 'Filter' }).click();
          await expect.poll(() => page.locator('tr[data-key]').count()).toBe(1);
          await shot(page, 'list', screenshots);

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
          await shot(page, 'transition', screenshots);
          await form.getByRole('button', { name: 'Review…' }).click();
          expect(await page.locator('[data-consequence]').textContent()).toContain('The tool will run once more');
          await shot(page, 'confirm', screenshots);
          await page.getByRole('button', { name: /Confirm/ }).click();
          await expect
            .poll(() => page.locator('.flash.ok').first().textContent())
            .toContain('release not executed by ada');
          expect(await page.locator('table[data-receipts]').textContent()).toContain('NOT_EXECUTED');
          expect(await page.locator('table[data-receipts]').textContent()).toContain(
            'ada: provider shows no charge for pi_42',
          );
          expect(await page.locator('[data-chain="ok"]').first().textContent()).toContain('Chain verified: 3 receipts');
          await shot(page, 'released', screenshots);
          expect((await seeded.ledger.get(seeded.unknown.key))?.operatorResolution?.by).toBe('ada');

          await page.goto(`${dashboard.url}/t/${seeded.held.key}`);
          const held = page.locator('form[data-action="release_not_executed"]');
          await held.getByLabel('Actor').fill('ada');
          await held.getByLabel('Reason').fill('looks stuck');
          await held.getByRole('button', { name: 'Review…' }).click();
          await page.getByRole('button', { name: /Confirm/ }).click();
          await expect.poll(() => page.locator('.flash.bad').first().textContent()).toContain('a lease is held by');
          await shot(page, 'refused', screenshots);

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
    const page = await (context as BrowserContext).newPage();
    try {
      const response = await page.request.get(`${dashboard.url}/t/${seeded.unknown.key}`, { maxRedirects: 0 });
      expect(response.status()).toBe(303);
      await page.goto(`${dashboard.url}/`);
      expect(page.url()).toBe(`${dashboard.url}/login`);
      await page.getByLabel('Token').fill('not-the-token');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect.poll(() => page.locator('.flash.bad').textContent()).toContain('not accepted');
      await shot(page, 'login', true);
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
