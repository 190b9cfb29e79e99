/**
 * The dashboard's list page over 100k transitions per store: time to first byte over real HTTP,
 * against the store's own `list` query for the same page measured in the same run (the baseline).
 *
 * Seeds 100k records through each store's `create`, in batches, with updates spread over the last
 * 24 hours (2% of them UNKNOWN or BLOCKED, 1% IN_FLIGHT), then asks for: the first list page, a
 * page filtered by outcome in the store, a free-text search filtered within the fetched pages (it
 * reads up to the scan bound of 2,000 records), and the overview (window counts and stuck list).
 *
 *   node bench/run-bundled.mjs bench/dashboard/run.ts [--records N] [--stores sqlite,postgres,redis]
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type RunningDashboard, startDashboard } from '../../src/dashboard/start-dashboard.js';
import { createLedger } from '../../src/index.js';
import type { Outcome } from '../../src/records/envelope.js';
import type { LedgerStorage, ListQuery } from '../../src/storage/ledger-storage.js';
import { createPostgresStorage } from '../../src/storage/postgres.js';
import { createRedisStorage } from '../../src/storage/redis.js';
import { createSqliteStorage } from '../../src/storage/sqlite.js';
import { makeTestRecord } from '../../src/testing/index.js';
import { commandLine, type Figure, figure, headerLines, load, writeArea } from '../lib/area-report.js';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '100000' },
    stores: { type: 'string', default: 'sqlite,postgres,redis' },
  },
});
const RECORDS = Number(values.records);
const STORES = String(values.stores).split(',');
const REQUESTS = 25;
const TARGET_MS = 200;
const REDIS_URL = process.env.HYPHAE_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const POSTGRES_URL = process.env.HYPHAE_BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const TOOLS = ['send_payment', 'lookup_order', 'send_email', 'refund', 'ship_parcel'];

function outcomeOf(i: number): Outcome {
  if (i % 100 === 7) return 'UNKNOWN';
  if (i % 100 === 13) return 'BLOCKED';
  if (i % 100 === 21) return 'IN_FLIGHT';
  return i % 10 === 3 ? 'FAILED_BEFORE_EFFECT' : 'COMPLETED';
}

async function seed(storage: LedgerStorage, count: number, batch: number): Promise<number> {
  const start = performance.now();
  const now = Date.now();
  for (let from = 0; from < count; from += batch) {
    const creates: Promise<unknown>[] = [];
    for (let i = from; i < Math.min(count, from + batch); i++) {
      const outcome = outcomeOf(i);
      const at = now - Math.floor(((count - i) / count) * 23 * 3_600_000);
      creates.push(
        storage.create(
          makeTestRecord({
            tool: TOOLS[i % TOOLS.length] as string,
            agentId: `agent-${i % 7}`,
            outcome,
            owner: outcome === 'IN_FLIGHT' ? `host:${i}:x#1` : null,
            leaseUntil: outcome === 'IN_FLIGHT' ? at + 60_000 : null,
            externalOperationRef: i % 3 === 0 ? `pi_${i}` : null,
            createdAt: at,
            firstAttemptAt: at,
            updatedAt: at,
            completedAt: outcome === 'COMPLETED' ? at : null,
          }),
        ),
      );
    }
    await Promise.all(creates);
  }
  return (performance.now() - start) / 1000;
}

/** Milliseconds until the response's headers arrive, and until its body has. */
function timeGet(url: string): Promise<{ ttfb: number; total: number; status: number }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    // A fresh connection per request: a kept-alive socket the server closed while idle would reset.
    const req = request(url, { agent: false }, (res) => {
      const ttfb = performance.now() - start;
      res.resume();
      res.on('end', () => resolve({ ttfb, total: performance.now() - start, status: res.statusCode ?? 0 }));
    });
    req.on('error', reject);
    req.end();
  });
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const p95 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)] ?? 0;

/** Read `pages` pages of `query`, following the cursor, as the page does. */
async function readPages(storage: LedgerStorage, query: ListQuery, pages: number): Promise<void> {
  let cursor: string | null = null;
  for (let i = 0; i < pages; i++) {
    const page = await storage.list({ ...query, ...(cursor === null ? {} : { cursor }) });
    cursor = page.nextCursor;
    if (cursor === null) return;
  }
}

/** The median time of the store reads a page makes, without HTTP or rendering. */
async function timeQuery(read: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  await read();
  for (let i = 0; i < REQUESTS; i++) {
    const start = performance.now();
    await read();
    times.push(performance.now() - start);
  }
  return median(times);
}

async function timePage(dashboard: RunningDashboard, path: string): Promise<{ median: number; p95: number }> {
  const ttfb: number[] = [];
  await timeGet(`${dashboard.url}${path}`);
  for (let i = 0; i < REQUESTS; i++) {
    const result = await timeGet(`${dashboard.url}${path}`);
    if (result.status !== 200) throw new Error(`${path} answered ${result.status}`);
    ttfb.push(result.ttfb);
  }
  return { median: median(ttfb), p95: p95(ttfb) };
}

interface Opened {
  readonly storage: LedgerStorage;
  readonly batch: number;
  cleanup(): Promise<void>;
}

async function open(name: string): Promise<Opened> {
  const tag = `${process.pid}_${Date.now()}`;
  if (name === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'hyphae-bench-dashboard-'));
    const storage = createSqliteStorage({ path: join(dir, 'ledger.db') }, { synchronous: 'NORMAL' });
    return { storage, batch: 1000, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  if (name === 'postgres') {
    const prefix = `benchdash_${tag}_`;
    const storage = createPostgresStorage({ connectionString: POSTGRES_URL }, { tablePrefix: prefix });
    return {
      storage,
      batch: 200,
      cleanup: async () => {
        const pg = (await import('pg')).default;
        const client = new pg.Client({ connectionString: POSTGRES_URL });
        await client.connect();
        await client.query(`DROP TABLE IF EXISTS "public"."${prefix}transitions", "public"."${prefix}meta"`);
        await client.end();
      },
    };
  }
  const prefix = `hyphae-bench-dashboard:${tag}:`;
  const storage = createRedisStorage({ url: REDIS_URL }, { prefix });
  return {
    storage,
    batch: 500,
    cleanup: async () => {
      const { createClient } = await import('redis');
      const client = createClient({ url: REDIS_URL });
      await client.connect();
      for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) {
        if (keys.length > 0) await client.unlink(keys);
      }
      await client.close();
    },
  };
}

/** Each page, and the store reads it makes (the baseline). */
const PAGES: readonly [string, string, (storage: LedgerStorage) => Promise<unknown>][] = [
  ['list page (first 50)', '/transitions?ledger=action', (s) => s.list({ limit: 50 })],
  [
    'list page, outcome UNKNOWN (store filter)',
    '/transitions?ledger=action&outcome=UNKNOWN',
    (s) => s.list({ limit: 50, outcome: ['UNKNOWN'] }),
  ],
  [
    'list page, free text (filtered in pages, 2,000 scanned)',
    '/transitions?ledger=action&q=no-such-ref',
    (s) => readPages(s, { limit: 200 }, 10),
  ],
  [
    'overview (24 h window, 2,000 read; stuck list)',
    '/',
    (s) =>
      Promise.all([
        readPages(s, { limit: 1000, updatedFrom: Date.now() - 24 * 3_600_000 }, 2),
        s.list({ limit: 1000, outcome: ['UNKNOWN', 'BLOCKED', 'FAILED_AFTER_EFFECT', 'IN_FLIGHT'] }),
      ]),
  ],
];

const loadAtStart = load();
const date = new Date();
const figures: Figure[] = [];
const rows: string[] = [];
for (const name of STORES) {
  const opened = await open(name);
  try {
    const seconds = await seed(opened.storage, RECORDS, opened.batch);
    process.stderr.write(`${name}: seeded ${RECORDS} in ${seconds.toFixed(1)} s\n`);
    const ledger = createLedger({ storage: opened.storage, agentId: 'bench', policyVersion: '1' });
    const dashboard = await startDashboard({
      host: '127.0.0.1',
      port: 0,
      ledgers: [{ name: 'action', ledger }],
      allowAnonymous: true,
    });
    try {
      for (const [label, path, reads] of PAGES) {
        const baseline = await timeQuery(() => reads(opened.storage));
        const page = await timePage(dashboard, path);
        figures.push(
          figure(`${name}: ${label} over ${RECORDS} transitions — TTFB median`, 'ms', page.median, baseline),
        );
        rows.push(
          `| ${name} | ${label} | ${page.median.toFixed(1)} | ${page.p95.toFixed(1)} | ${baseline.toFixed(1)} | ${(page.median / baseline).toFixed(1)} | ${page.median < TARGET_MS ? 'yes' : 'no'} |`,
        );
        process.stderr.write(
          `${name}: ${label}: ${page.median.toFixed(1)} ms (store list ${baseline.toFixed(1)} ms)\n`,
        );
      }
    } finally {
      await dashboard.close();
    }
  } finally {
    await opened.storage.close();
    await opened.cleanup();
  }
}

const markdown = `# Dashboard

The list page over ${RECORDS.toLocaleString('en')} transitions per store, served over HTTP on 127.0.0.1: time to
first byte (median and p95 of ${REQUESTS} sequential requests after one warm-up), against the store's
own \`list\` query for the same page measured in the same run. Target: median < ${TARGET_MS} ms.

${headerLines(commandLine(), loadAtStart, date).join('\n')}
- Records seeded through each store's \`create\` in batches; updates spread over the last 23 h.

| store | page | TTFB median ms | TTFB p95 ms | store list ms (baseline) | ratio | < ${TARGET_MS} ms |
| --- | --- | --- | --- | --- | --- | --- |
${rows.join('\n')}

The baseline of each row is the store reads that page makes, without HTTP or rendering: the
free-text row reads the scan bound (10 pages of 200) because nothing matches; the overview reads the
24 h window's newest 2,000 and the stuck outcomes (up to 1,000).
`;
await writeArea('dashboard', figures, markdown);
process.stdout.write(markdown);
