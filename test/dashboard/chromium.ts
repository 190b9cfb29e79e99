/**
 * Debian's `chromium`, driven by `playwright-core` (never a browser download), for the dashboard's
 * browser tests: one persistent context per test file, opened before its tests and closed after,
 * with the temp folders the file made. With `HYPHAE_SCREENSHOTS=1` `shot` saves the screenshots of
 * docs/dashboard.md.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

/** With `REQUIRE_INTEGRATION=1` a missing chromium fails the file instead of skipping it. */
export const REQUIRED = process.env.REQUIRE_INTEGRATION === '1';

const SHOTS =
  process.env.HYPHAE_SCREENSHOTS === '1' ? fileURLToPath(new URL('../../docs/dashboard/', import.meta.url)) : undefined;

function chromiumPath(): string | undefined {
  try {
    return execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** The chromium on PATH, or undefined when it is not installed. */
export const executablePath = chromiumPath();

/** The file's browser context, its temp folders, and its screenshots. */
export interface Chromium {
  /** A new page of the file's context. */
  newPage(): Promise<Page>;
  /** A temp folder removed after the file's tests. */
  tempDir(prefix: string): string;
  /** Save `docs/dashboard/<name>.png` when screenshots are asked for and `enabled`. */
  shot(page: Page, name: string, enabled: boolean): Promise<void>;
}

/** Open chromium before the file's tests and close it, and its temp folders, after them. */
export function useChromium(): Chromium {
  const dirs: string[] = [];
  let context: BrowserContext | undefined;
  const tempDir = (prefix: string): string => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
  beforeAll(async () => {
    if (executablePath === undefined) {
      if (REQUIRED)
        throw new Error('chromium is not installed (apt-get install -y chromium); REQUIRE_INTEGRATION=1 needs it');
      return;
    }
    context = await chromium.launchPersistentContext(tempDir('hyphae-chromium-'), {
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
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
  });
  return {
    newPage: () => (context as BrowserContext).newPage(),
    tempDir,
    async shot(page, name, enabled) {
      if (SHOTS !== undefined && enabled) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
    },
  };
}
