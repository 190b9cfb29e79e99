/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`, every server scenario:
 * `--suite all`) against the conformance server of `fixtures/conformance-server.ts`, directly and
 * through `hyphae mcp --listen …` granted read, write and destructive, in front of the server over
 * Streamable HTTP (`--url …`) and over stdio (`-- node conformance-server.ts`) — twice each, by proxy
 * processes in a row on one SQLite ledger. The proxy must pass every scenario the server passes.
 *
 * The suite runs on Node.js 22 or later (it imports `globSync` from `node:fs`); on an older runtime
 * this file only shows that the runtime lacks it.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SQLITE_LEDGER, useTempDirs, writeConfig } from './helpers.js';
import { conformanceServerOverHttp, listenProxy } from './http-helpers.js';

/** The conformance server over stdio, as `hyphae mcp -- …` starts it. */
const CONFORMANCE_STDIO = [
  process.execPath,
  '--import',
  new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url).href,
  fileURLToPath(new URL('./fixtures/conformance-server.ts', import.meta.url)),
];

const SUITE = fileURLToPath(
  new URL('../../node_modules/@modelcontextprotocol/conformance/dist/index.js', import.meta.url),
);

/**
 * Scenarios the server passes and the proxy does not, each with the reason (docs/mcp.md, "Known
 * gaps"). The test asserts they still fail through the proxy, so a fix shows as a failure here.
 */
const GAPS: Readonly<Record<string, string>> = {};

type Verdict = 'passed' | 'failed';

/** Run the suite's server scenarios against `url`; each scenario's verdict (failed: a check failed). */
function runSuite(url: URL, cwd: string, out: string): Promise<Map<string, Verdict>> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [SUITE, 'server', '--url', url.href, '--suite', 'all', '--output-dir', out],
      { cwd, env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 64 * 1024 * 1024 },
      // The suite exits 1 when a scenario fails: the verdicts are read from its results either way.
      () => {
        try {
          resolve(verdicts(out));
        } catch (error) {
          reject(error);
        }
      },
    );
  });
}

/** `<out>/server-<scenario>-<timestamp>/checks.json` → scenario → verdict. */
function verdicts(out: string): Map<string, Verdict> {
  const result = new Map<string, Verdict>();
  for (const entry of readdirSync(out).sort()) {
    const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry)?.[1];
    if (scenario === undefined) continue;
    const checks = JSON.parse(readFileSync(join(out, entry, 'checks.json'), 'utf8')) as { status: string }[];
    result.set(scenario, checks.some((check) => check.status === 'FAILURE') ? 'failed' : 'passed');
  }
  return result;
}

const withoutGaps = (results: Map<string, Verdict>) =>
  Object.fromEntries([...results].filter(([scenario]) => !(scenario in GAPS)));
const gapsOf = (results: Map<string, Verdict>) =>
  Object.fromEntries([...results].filter(([scenario]) => scenario in GAPS));

const tempDir = useTempDirs();

if (!('globSync' in fs)) {
  describe('the MCP conformance suite on a runtime without fs.globSync', () => {
    it(`does not apply on Node.js ${process.versions.node}: the suite needs Node.js 22 or later`, () => {
      expect(Number(process.versions.node.split('.')[0])).toBeLessThan(22);
    });
  });
} else {
  describe('the MCP conformance suite', () => {
    it('passes through `hyphae mcp` every scenario it passes against the server, over HTTP and stdio, twice each on one ledger', async () => {
      const dir = tempDir();
      const upstream = await conformanceServerOverHttp(dir);
      const direct = await runSuite(upstream, dir, join(dir, 'direct'));

      const config = writeConfig(
        dir,
        ...SQLITE_LEDGER,
        'fuses: { permission: { granted: [read, write, destructive] } }',
      );
      // The proxy in front of the server over Streamable HTTP, then in front of it over stdio.
      const upstreams = [
        ['--url', upstream.href],
        ['--', ...CONFORMANCE_STDIO],
      ] as const;
      const proxied: Map<string, Verdict>[] = [];
      for (const [leg, server] of upstreams.entries()) {
        for (const round of [1, 2]) {
          const proxy = await listenProxy(dir, ['-c', config, '--listen', '127.0.0.1:0', ...server]);
          proxied.push(await runSuite(proxy.url, dir, join(dir, `proxied-${leg}-${round}`)));
          await new Promise((resolve) => {
            proxy.child.once('exit', resolve);
            proxy.child.kill('SIGTERM');
          });
        }
      }

      expect(existsSync(join(dir, 'ledger.db'))).toBe(true);
      expect(direct.size).toBeGreaterThan(0);
      expect([...direct.values()].filter((verdict) => verdict === 'passed').length).toBeGreaterThan(0);
      expect(proxied).toHaveLength(4);
      for (const results of proxied) {
        expect([...results.keys()]).toEqual([...direct.keys()]);
        expect(withoutGaps(results)).toEqual(withoutGaps(direct));
        expect(gapsOf(results)).toEqual(Object.fromEntries(Object.keys(GAPS).map((scenario) => [scenario, 'failed'])));
      }
    }, 300_000);
  });
}
