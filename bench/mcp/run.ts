/**
 * MCP proxy benchmark: the latency `hyphae mcp` adds to one `tools/call` against a direct
 * connection to the same server, over stdio and over Streamable HTTP, and the calls per second it
 * sustains. The proxy runs as shipped (`dist/cli/main.js`; run `npm run build` first) with the
 * ledger on SQLite (synchronous FULL).
 *
 *   node --import tsx bench/mcp/run.ts            # full run (~1 min)
 *   node --import tsx bench/mcp/run.ts --quick    # short run
 *
 * Cases run in interleaved rounds so machine drift lands on direct and proxied calls alike. Every
 * call has arguments of its own (the loop fuse would refuse a third identical call). Writes
 * bench/results/mcp.json and bench/results/mcp.md.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { commandLine, type Figure, figure, headerLines, load, us, writeArea } from '../lib/area-report.js';
import { Histogram, type Stats } from '../lib/histogram.js';
import { markdownTable } from '../lib/markdown-table.js';

const quick = process.argv.includes('--quick');
const plan = quick
  ? { calls: 150, rounds: 3, warmup: 50, throughputMs: 1500 }
  : { calls: 600, rounds: 5, warmup: 200, throughputMs: 5000 };
const CONCURRENCY = 8;

const root = (path: string): string => fileURLToPath(new URL(`../../${path}`, import.meta.url));
const MAIN = root('dist/cli/main.js');
const TSX = new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;
const TEST_SERVER = [process.execPath, '--import', TSX, root('test/mcp/fixtures/test-server.ts')];
const EVERYTHING = root('node_modules/@modelcontextprotocol/server-everything/dist/index.js');

const dir = mkdtempSync(join(tmpdir(), 'hyphae-mcp-bench-'));
const config = join(dir, 'hyphae.yaml');
writeFileSync(
  config,
  [
    'transition: { agent_id: mcp-bench, policy_version: 1 }',
    'action_ledger: { storage: sqlite, path: ledger.db }',
    'fuses: { permission: { granted: [read, write, destructive] } }',
    'mcp: { pinning: true, retry_window: 1m }',
    '',
  ].join('\n'),
);
const children: ChildProcess[] = [];
const clients: Client[] = [];

async function stdioClient(command: readonly string[]): Promise<Client> {
  const [bin, ...args] = command;
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: bin as string,
      args,
      cwd: dir,
      env: process.env as Record<string, string>,
      stderr: 'ignore',
    }),
  );
  clients.push(client);
  return client;
}

async function httpClient(url: URL): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url));
  clients.push(client);
  return client;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

function startChild(args: readonly string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<RegExpExecArray> {
  const child = spawn(process.execPath, [...args], {
    cwd: dir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const match = ready.exec(stderr);
      if (match !== null) resolve(match);
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
  });
}

interface Case {
  readonly name: string;
  readonly client: Client;
  readonly call: (i: number) => { name: string; arguments: Record<string, unknown> };
  readonly histogram: Histogram;
}

let serial = 0;
const echo = (i: number) => ({ name: 'echo', arguments: { text: `read ${i}` } });
const pay = (i: number) => ({ name: 'pay', arguments: { amount: i, to: `acct_${serial}` } });
const httpEcho = (i: number) => ({ name: 'echo', arguments: { message: `read ${i}` } });

async function runCalls(c: Case, count: number, record: boolean): Promise<void> {
  for (let i = 0; i < count; i++) {
    const n = ++serial;
    const started = performance.now();
    const result = await c.client.callTool(c.call(n));
    const elapsed = (performance.now() - started) * 1000;
    if (result.isError === true) throw new Error(`${c.name}: ${JSON.stringify(result.content)}`);
    if (record) c.histogram.record(elapsed);
  }
}

async function throughput(
  client: Client,
  call: (i: number) => { name: string; arguments: Record<string, unknown> },
): Promise<number> {
  const deadline = performance.now() + plan.throughputMs;
  let done = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline) {
        await client.callTool(call(++serial));
        done++;
      }
    }),
  );
  return done / ((performance.now() - started) / 1000);
}

async function main(): Promise<void> {
  const loadAtStart = load();
  const date = new Date();
  const directStdio = await stdioClient(TEST_SERVER);
  const proxiedStdio = await stdioClient([process.execPath, MAIN, 'mcp', '-c', config, '--', ...TEST_SERVER]);
  const port = await freePort();
  await startChild([EVERYTHING, 'streamableHttp'], { PORT: String(port) }, /listening on port/);
  const upstreamUrl = new URL(`http://127.0.0.1:${port}/mcp`);
  const listening = await startChild(
    [MAIN, 'mcp', '-c', config, '--listen', '127.0.0.1:0', '--url', upstreamUrl.href],
    {},
    /listening on (http:\/\/\S+)/,
  );
  const directHttp = await httpClient(upstreamUrl);
  const proxiedHttp = await httpClient(new URL(listening[1] as string));
  for (const client of [proxiedStdio, proxiedHttp]) await client.listTools();

  const cases: Case[] = [
    { name: 'stdio, read tool (`echo`): direct', client: directStdio, call: echo, histogram: new Histogram() },
    {
      name: 'stdio, read tool (`echo`): through hyphae mcp',
      client: proxiedStdio,
      call: echo,
      histogram: new Histogram(),
    },
    { name: 'stdio, write tool (`pay`, ledgered): direct', client: directStdio, call: pay, histogram: new Histogram() },
    {
      name: 'stdio, write tool (`pay`, ledgered): through hyphae mcp',
      client: proxiedStdio,
      call: pay,
      histogram: new Histogram(),
    },
    { name: 'HTTP, read tool (`echo`): direct', client: directHttp, call: httpEcho, histogram: new Histogram() },
    {
      name: 'HTTP, read tool (`echo`): through hyphae mcp',
      client: proxiedHttp,
      call: httpEcho,
      histogram: new Histogram(),
    },
  ];
  for (const c of cases) await runCalls(c, plan.warmup, false);
  for (let round = 0; round < plan.rounds; round++) {
    for (const c of cases) await runCalls(c, Math.ceil(plan.calls / plan.rounds), true);
  }
  const rates = {
    direct: await throughput(directStdio, echo),
    proxied: await throughput(proxiedStdio, echo),
  };

  const pairs: [string, Stats, Stats][] = [];
  for (let i = 0; i < cases.length; i += 2) {
    const direct = cases[i] as Case;
    const proxied = cases[i + 1] as Case;
    pairs.push([proxied.name.replace(': through hyphae mcp', ''), direct.histogram.stats(), proxied.histogram.stats()]);
  }
  const figures: Figure[] = [];
  for (const [name, direct, proxied] of pairs) {
    figures.push(figure(`${name} — p50 through the proxy`, 'µs/call', proxied.p50Us, direct.p50Us));
    figures.push(figure(`${name} — p99 through the proxy`, 'µs/call', proxied.p99Us, direct.p99Us));
    figures.push(figure(`${name} — p50 added by the proxy`, 'µs/call', proxied.p50Us - direct.p50Us, null));
  }
  figures.push(
    figure(
      `stdio, read tool, ${CONCURRENCY} concurrent callers — calls/s through the proxy`,
      'calls/s',
      rates.proxied,
      rates.direct,
      0,
    ),
  );
  const stdioRead = pairs[0];
  const added = stdioRead === undefined ? Number.NaN : stdioRead[2].p50Us - stdioRead[1].p50Us;
  const right = (title: string) => ({ title, align: 'right' as const });
  const markdown = [
    '# MCP proxy benchmark',
    '',
    ...headerLines(commandLine(), loadAtStart, date),
    `- Plan: ${plan.warmup} warm-up calls per case, then ${plan.calls} calls per case in ${plan.rounds} interleaved rounds; throughput: ${CONCURRENCY} concurrent callers for ${plan.throughputMs / 1000} s`,
    '- Proxy: `node dist/cli/main.js mcp` with the ledger on SQLite (synchronous FULL), pinning on, secrets `refuse`; the upstream is the same server process type in both columns (`test/mcp/fixtures/test-server.ts` over stdio, the everything server over HTTP)',
    '',
    'A read tool is not ledgered (a retried read reads again); the write tool is, so its added latency includes the',
    "ledger's durable writes (claim, `maybe_crossed`, completion) and the retry-window lookup.",
    '',
    ...markdownTable(
      [
        { title: 'case' },
        ...[
          'calls',
          'direct p50 µs',
          'proxied p50 µs',
          'added p50 µs',
          'direct p99 µs',
          'proxied p99 µs',
          'ratio (p50)',
        ].map(right),
      ],
      pairs.map(([name, direct, proxied]) => [
        name,
        String(proxied.ops),
        us(direct.p50Us),
        us(proxied.p50Us),
        us(proxied.p50Us - direct.p50Us),
        us(direct.p99Us),
        us(proxied.p99Us),
        `${(proxied.p50Us / direct.p50Us).toFixed(2)}×`,
      ]),
    ),
    '',
    `Throughput, stdio read tool, ${CONCURRENCY} concurrent callers: ${rates.direct.toFixed(0)} calls/s direct, ${rates.proxied.toFixed(0)} calls/s through the proxy (${(rates.proxied / rates.direct).toFixed(2)}×).`,
    '',
    `Target: ≤ 1 ms p50 added on stdio for a read tool with the ledger on SQLite — measured ${us(added)} µs: ${added <= 1000 ? 'met' : '**not met**'}.`,
    '',
  ].join('\n');
  await writeArea('mcp', figures, markdown);
  process.stdout.write(markdown);
}

try {
  await main();
} finally {
  await Promise.allSettled(clients.map((client) => client.close()));
  for (const child of children) child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
