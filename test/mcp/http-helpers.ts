/**
 * Child processes that speak Streamable HTTP: `hyphae mcp --listen`, and the everything server and
 * the conformance server in their HTTP modes. Each is stopped (SIGTERM to its own pid) after the test.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const TSX = new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;
const CONFORMANCE = fileURLToPath(new URL('./fixtures/conformance-server.ts', import.meta.url));
const EVERYTHING = fileURLToPath(
  new URL('../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
);

const children: ChildProcess[] = [];
afterEach(async () => {
  await Promise.all(
    children.splice(0).map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        }),
    ),
  );
});

/** A started child and what it wrote to standard error. */
export interface Started {
  readonly child: ChildProcess;
  readonly stderr: () => string;
}

function start(
  args: readonly string[],
  cwd: string,
  env: Record<string, string>,
  ready: RegExp,
): Promise<Started & { readonly match: RegExpExecArray }> {
  const child = spawn(process.execPath, [...args], {
    cwd,
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const match = ready.exec(stderr);
      if (match !== null) resolve({ child, stderr: () => stderr, match });
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code} before it was ready: ${stderr}`)));
  });
}

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/** `hyphae mcp --listen 127.0.0.1:0 [args] -- <server…>`, resolved once it listens, with its URL. */
export async function listenProxy(
  cwd: string,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<Started & { readonly url: URL }> {
  const started = await start(['--import', TSX, MAIN, 'mcp', ...args], cwd, env, /listening on (http:\/\/\S+)/);
  return { ...started, url: new URL(started.match[1] as string) };
}

/** The everything server over Streamable HTTP, resolved once it listens. */
export async function everythingOverHttp(cwd: string): Promise<URL> {
  const port = await freePort();
  await start([EVERYTHING, 'streamableHttp'], cwd, { PORT: String(port) }, /listening on port/);
  return new URL(`http://127.0.0.1:${port}/mcp`);
}

/** The conformance server of `fixtures/conformance-server.ts` over Streamable HTTP, resolved once it listens. */
export async function conformanceServerOverHttp(cwd: string): Promise<URL> {
  const { match } = await start(['--import', TSX, CONFORMANCE, 'http'], cwd, {}, /listening on (http:\/\/\S+)/);
  return new URL(match[1] as string);
}
