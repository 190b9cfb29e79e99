/**
 * Every example the docs point to as "a runnable version" runs: `node --import tsx examples/<file>`
 * exits 0 with no network (each talks to a scripted model or a local stand-in of its API), and the
 * front doors' examples print the outcome their docs page promises.
 */
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const DIR = fileURLToPath(new URL('../examples/', import.meta.url));
const TSX = new URL('../node_modules/tsx/dist/loader.mjs', import.meta.url).href;

/** What an example must print, where its docs page says what it shows. */
const PROMISES: Readonly<Record<string, readonly RegExp[]>> = {
  'ai-sdk-guard-tools.ts': [/payments made: 1\b/],
  'anthropic-tool-runner.ts': [/loop_repeat/, /guarded: \[\{"type":"text","text":"shipped"\}\]/],
  'claude-agent-sdk-hooks.ts': [/Charges made: 1 \(inv_42\)/],
  'mastra-agent.ts': [/polling job: The export is done\./, /\(1 charge\)/, /loop_repeat/],
};

function run(file: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['--import', TSX, `${DIR}${file}`],
      { cwd: DIR, env: { ...process.env, NO_COLOR: '1' }, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
      (_error, stdout, stderr) => resolve({ code: child.exitCode, out: `${stdout}${stderr}` }),
    );
  });
}

describe('the examples', () => {
  const files = readdirSync(DIR).filter((file) => file.endsWith('.ts'));

  it('include one per front door the docs name', () => {
    expect(files).toEqual(expect.arrayContaining(Object.keys(PROMISES)));
  });

  it.each(files)(
    '%s runs to its end',
    async (file) => {
      const { code, out } = await run(file);

      expect(code, out).toBe(0);
      for (const promise of PROMISES[file] ?? []) expect(out).toMatch(promise);
    },
    150_000,
  );
});
