/**
 * `hyphae dashboard`: the operator dashboard over the ledgers the config names.
 *
 * `hono` and `@hono/node-server` are optional peers, loaded here and only here: the library and
 * every other command work without them.
 */

import { createPinStore } from '../../adapters/mcp/pins.js';
import { openReceiptSigner, openReceiptSink } from '../../config/open-stores.js';
import { checkToken, type DashboardToken, isLoopback, LOOPBACK_HOSTS } from '../../dashboard/auth.js';
import { GuardError, MissingPeerDependencyError } from '../../errors.js';
import type { ReceiptKey } from '../../ledger/receipts/signers.js';
import { importPeerDependency } from '../../peer-dependency.js';
import type { ReceiptSink } from '../../storage/receipt-sink.js';
import { type Command, type CommandContext, ExitCode, UsageError } from '../command.js';
import { DEFAULT_CONFIG_FILE, ledgersOf, loadCommandConfig } from '../lib/config-ledgers.js';
import { flag, type ParsedOptions, parseOptions, stringOption } from '../lib/parse-options.js';

/** The environment variables holding the tokens (safer than `--token`, which `ps` shows). */
export const TOKEN_ENV = 'HYPHAE_DASHBOARD_TOKEN';
/** The environment variable holding a read-only token. */
export const READ_TOKEN_ENV = 'HYPHAE_DASHBOARD_READ_TOKEN';

const HELP = `Usage: hyphae dashboard [options]

Serves the operator dashboard over the ledgers the config names: counts and what is stuck, a
filtered list, each transition's timeline and receipts, and release / mark-dead with a confirm step.

Options:
  -c, --config FILE   the config (default ./hyphae.yaml)
  --host HOST         the address to listen on (default 127.0.0.1)
  --port N            the port (default 4500; 0 picks a free one)
  --token TOKEN       a token with scope act (read and act); or set ${TOKEN_ENV}
  --read-token TOKEN  a token with scope read; or set ${READ_TOKEN_ENV}
  --read-only         refuse every action, whatever the token

On 127.0.0.1 no token is needed (a token, when given, is still required). Any other address needs a
token: the command refuses to start without one. Tokens have at least 24 characters.

Needs the packages hono and @hono/node-server (npm install hono @hono/node-server).

Exit codes: 0 stopped by a signal, 1 the config or a store cannot open, 2 usage
`;

const SPEC = {
  config: { type: 'string', short: 'c' },
  host: { type: 'string' },
  port: { type: 'string' },
  token: { type: 'string' },
  'read-token': { type: 'string' },
  'read-only': { type: 'boolean' },
} as const;

function portOf(parsed: ParsedOptions): number {
  const text = stringOption(parsed, 'port');
  if (text === undefined) return 4500;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new UsageError(`\`--port\` takes a port number (0 to 65535), got \`${text}\``);
  }
  return port;
}

type Dashboard = typeof import('../../dashboard/start-dashboard.js');

async function loadDashboard(ctx: CommandContext): Promise<Dashboard | undefined> {
  try {
    return await importPeerDependency(
      () => import('../../dashboard/start-dashboard.js'),
      ['hono', '@hono/node-server'],
      'The dashboard',
    );
  } catch (error) {
    if (!(error instanceof MissingPeerDependencyError)) throw error;
    ctx.err.line(error.message);
    return undefined;
  }
}

function tokensOf(parsed: ParsedOptions, ctx: CommandContext): DashboardToken[] {
  const act = stringOption(parsed, 'token') ?? (ctx.env[TOKEN_ENV] || undefined);
  const read = stringOption(parsed, 'read-token') ?? (ctx.env[READ_TOKEN_ENV] || undefined);
  const tokens: DashboardToken[] = [];
  try {
    if (act !== undefined) tokens.push(checkToken({ token: act, scope: 'act' }));
    if (read !== undefined) tokens.push(checkToken({ token: read, scope: 'read' }));
  } catch (error) {
    if (error instanceof GuardError) throw new UsageError(error.message);
    throw error;
  }
  return tokens;
}

/** Wait for SIGINT or SIGTERM. */
function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

interface Listen {
  readonly host: string;
  readonly port: number;
  readonly tokens: readonly DashboardToken[];
  readonly loopback: boolean;
}

/** Check where to listen and with which tokens before anything is loaded or opened. */
function listenOf(parsed: ParsedOptions, ctx: CommandContext): Listen {
  const host = stringOption(parsed, 'host') ?? '127.0.0.1';
  const port = portOf(parsed);
  const tokens = tokensOf(parsed, ctx);
  const loopback = isLoopback(host);
  if (!loopback && tokens.length === 0) {
    throw new UsageError(
      `Listening on \`${host}\` needs a token: pass \`--token\` (or \`--read-token\`) or set ${TOKEN_ENV}`,
    );
  }
  return { host, port, tokens, loopback };
}

async function serve(
  parsed: ParsedOptions,
  listen: Listen,
  ctx: CommandContext,
  dashboard: Dashboard,
): Promise<number> {
  const { host, port, tokens, loopback } = listen;
  const config = await loadCommandConfig(stringOption(parsed, 'config') ?? DEFAULT_CONFIG_FILE, ctx);
  if (config === undefined) return ExitCode.failed;
  let sink: ReceiptSink | undefined;
  try {
    const ledgers = ledgersOf(config).map((ledger) => ({
      name: ledger === config.ledger ? 'action' : 'task',
      ledger,
    }));
    if (ledgers.length === 0) {
      ctx.err.line('The config has no ledger (`transition` with `action_ledger` or `task_ledger`)');
      return ExitCode.failed;
    }
    let receipts: { sink: ReceiptSink; keys: ReceiptKey } | undefined;
    const { settings } = config;
    if (settings.receipts !== undefined) {
      const signer = await openReceiptSigner(settings.receipts, ctx.env);
      if ('issue' in signer) {
        ctx.err.line(signer.issue.message);
        return ExitCode.failed;
      }
      // A sink of its own, for reading: the ledgers' writer keeps appending through theirs.
      sink = await openReceiptSink(settings.receipts, settings.actionLedger?.store, ctx.env);
      receipts = { sink, keys: signer.signer };
    }
    const running = await dashboard.startDashboard({
      host,
      port,
      ledgers,
      tokens,
      allowAnonymous: loopback && tokens.length === 0,
      ...(loopback ? { allowedHosts: [...LOOPBACK_HOSTS, host.toLowerCase()] } : {}),
      readOnly: flag(parsed, 'read-only'),
      pins: (ledger) => createPinStore(ledger),
      onError: (error) => ctx.err.line(error instanceof Error ? (error.stack ?? error.message) : String(error)),
      ...(receipts === undefined ? {} : { receipts }),
    });
    const mode = flag(parsed, 'read-only')
      ? 'read-only'
      : tokens.length === 0
        ? 'no token (loopback)'
        : 'token required';
    ctx.out.line(`Dashboard on ${running.url} (${mode}); Ctrl-C stops it`);
    await untilSignal();
    await running.close();
    return ExitCode.ok;
  } catch (error) {
    if (!(error instanceof GuardError)) throw error;
    ctx.err.line(error.message);
    return ExitCode.failed;
  } finally {
    await Promise.allSettled([config.close(), sink?.close()]);
  }
}

/** `hyphae dashboard`. */
export const dashboardCommand: Command = {
  name: 'dashboard',
  summary: 'serve the operator dashboard (list, inspect, release) on 127.0.0.1',
  help: HELP,
  async run(args, ctx) {
    const parsed = parseOptions('dashboard', args, SPEC);
    if (parsed.positionals.length > 0) throw new UsageError('`hyphae dashboard` takes no arguments');
    const listen = listenOf(parsed, ctx);
    const dashboard = await loadDashboard(ctx);
    if (dashboard === undefined) return ExitCode.failed;
    return serve(parsed, listen, ctx, dashboard);
  },
};
