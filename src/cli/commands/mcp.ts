/**
 * `hyphae mcp`: the guarding proxy in front of an MCP server, `hyphae mcp approve` / `hyphae mcp
 * reject` for a tool whose changed definition was quarantined, and `hyphae mcp approve --call KEY`
 * for a call held for an operator's approval.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { createPinStore } from '../../adapters/mcp/pins.js';
import type { HyphaeConfig } from '../../config/create-config.js';
import { GuardError } from '../../errors.js';
import { type Command, type CommandContext, ExitCode, UsageError } from '../command.js';
import { DEFAULT_CONFIG_FILE, loadCommandConfig } from '../lib/config-ledgers.js';
import { listOption, type OptionSpec, type ParsedOptions, parseOptions, stringOption } from '../lib/parse-options.js';
import { runProxy } from '../mcp/run-proxy.js';
import { isLoopback, type ListenOptions } from '../mcp/serve-http.js';
import type { UpstreamTarget } from '../mcp/upstream.js';

const HELP = `Usage: hyphae mcp [options] -- <command> [args…]
       hyphae mcp [options] --url http://HOST/mcp
       hyphae mcp approve TOOL --server NAME --by WHO [--reason WHY] [-c FILE]
       hyphae mcp reject TOOL --server NAME --by WHO --reason WHY [-c FILE]
       hyphae mcp approve --call KEY --by WHO --reason WHY [-c FILE]

Runs <command> as an MCP server over stdio (or connects to one over Streamable HTTP with --url)
and serves it to the client on this process's stdio (or over Streamable HTTP with --listen),
with every tools/call guarded: allow list, permissions, loop and budget fuses, argument and output
validation, the ledger (a retried call gets the stored result), tool pinning, secret scanning.
Everything else (resources, prompts, sampling, logging, progress) passes through unchanged.

Subcommands:
  approve TOOL --server NAME --by WHO [--reason WHY]
        approve the changed definition of a quarantined tool of the server NAME (its
        serverInfo.name); the next listing shows it again
  reject TOOL --server NAME --by WHO --reason WHY
        reject it: the old pin stays, and that definition stays quarantined without being
        offered for review again (a later, different one is)
  approve --call KEY --by WHO --reason WHY
        approve the call held under KEY (an \`mcp.approval\` transition of a tool with
        approval: required): the client's next call with the same arguments runs, once

Options:
  -c, --config FILE     the config (default ./hyphae.yaml; without one: safe defaults, no ledger)
  --principal NAME      who calls (overrides mcp.principal)
  --session NAME        the session a retried call must share (overrides mcp.session)
  --url URL             the upstream server's Streamable HTTP endpoint (instead of -- <command>)
  --header 'NAME: VALUE'
                        a header sent to the --url upstream (repeatable)
  --listen HOST:PORT    serve clients over Streamable HTTP at http://HOST:PORT/mcp; a host other
                        than loopback needs a bearer token
  --token-env NAME      the environment variable holding the bearer token clients must send
                        (default HYPHAE_MCP_TOKEN; checked whenever it is set)

Exit codes: 0 ok, 1 refused or the config cannot load, 2 usage
`;

const RUN_SPEC: Readonly<Record<string, OptionSpec>> = {
  config: { type: 'string', short: 'c' },
  principal: { type: 'string' },
  session: { type: 'string' },
  url: { type: 'string' },
  header: { type: 'string', multiple: true },
  listen: { type: 'string' },
  'token-env': { type: 'string' },
};

const APPROVE_SPEC: Readonly<Record<string, OptionSpec>> = {
  config: { type: 'string', short: 'c' },
  call: { type: 'string' },
  server: { type: 'string' },
  by: { type: 'string' },
  reason: { type: 'string' },
};

async function configFor(file: string | undefined, ctx: CommandContext): Promise<HyphaeConfig | undefined | null> {
  const path = file ?? DEFAULT_CONFIG_FILE;
  if (file === undefined && !existsSync(resolve(ctx.cwd, path))) return undefined;
  return (await loadCommandConfig(path, ctx)) ?? null;
}

/** `hyphae mcp approve --call KEY`: release the held call through the ledger's guard records. */
async function approveCall(parsed: ParsedOptions, key: string, ctx: CommandContext): Promise<number> {
  const by = stringOption(parsed, 'by');
  const reason = stringOption(parsed, 'reason');
  if (parsed.positionals.length > 0 || stringOption(parsed, 'server') !== undefined) {
    throw new UsageError('`hyphae mcp approve --call KEY` takes no TOOL and no --server');
  }
  if (by === undefined || reason === undefined)
    throw new UsageError('`hyphae mcp approve --call` needs --by and --reason');
  const config = await configFor(stringOption(parsed, 'config') ?? DEFAULT_CONFIG_FILE, ctx);
  if (config === null || config === undefined) return ExitCode.failed;
  try {
    if (config.ledger === undefined) {
      ctx.err.line('The config has no `action_ledger`: there are no held calls to approve');
      return ExitCode.failed;
    }
    await config.ledger.records.approve(key, { by, reason });
    ctx.out.line(`Approved the call held under \`${key}\`: the client's next identical call runs, once`);
    return ExitCode.ok;
  } catch (error) {
    if (!(error instanceof GuardError)) throw error;
    ctx.err.line(error.message);
    return ExitCode.failed;
  } finally {
    await config.close();
  }
}

async function review(action: 'approve' | 'reject', args: readonly string[], ctx: CommandContext): Promise<number> {
  const parsed = parseOptions(`mcp ${action}`, args, APPROVE_SPEC);
  const call = stringOption(parsed, 'call');
  if (call !== undefined) {
    if (action === 'reject') throw new UsageError('`hyphae mcp reject` reviews a tool definition; it takes no --call');
    return approveCall(parsed, call, ctx);
  }
  const [tool, extra] = parsed.positionals;
  const server = stringOption(parsed, 'server');
  const by = stringOption(parsed, 'by');
  const reason = stringOption(parsed, 'reason');
  if (tool === undefined || extra !== undefined) throw new UsageError(`\`hyphae mcp ${action}\` takes one TOOL`);
  if (server === undefined || by === undefined) {
    throw new UsageError(`\`hyphae mcp ${action}\` needs --server and --by`);
  }
  if (action === 'reject' && reason === undefined) throw new UsageError('`hyphae mcp reject` needs --reason');
  const config = await configFor(stringOption(parsed, 'config') ?? DEFAULT_CONFIG_FILE, ctx);
  if (config === null || config === undefined) return ExitCode.failed;
  try {
    if (config.ledger === undefined) {
      ctx.err.line(`The config has no \`action_ledger\`: there are no pins to ${action}`);
      return ExitCode.failed;
    }
    const pins = createPinStore(config.ledger);
    const result = await pins.review(server, tool, action, { by, ...(reason === undefined ? {} : { reason }) });
    if (!result.ok) {
      ctx.err.line(result.message);
      return ExitCode.failed;
    }
    ctx.out.line(
      action === 'approve'
        ? `Approved the new definition of \`${tool}\` of \`${server}\``
        : `Rejected the new definition of \`${tool}\` of \`${server}\`: it stays quarantined`,
    );
    return ExitCode.ok;
  } finally {
    await config.close();
  }
}

function targetOf(parsed: ParsedOptions, command: readonly string[] | undefined): UpstreamTarget {
  const url = stringOption(parsed, 'url');
  if ((url === undefined) === (command === undefined)) {
    throw new UsageError('`hyphae mcp` needs either the server command after `--` or `--url`');
  }
  if (url === undefined) {
    const [name, ...args] = command ?? [];
    if (name === undefined) throw new UsageError('`hyphae mcp` needs the server command after `--`');
    return { kind: 'command', command: name, args };
  }
  let parsedUrl: URL;
  try {
    parsedUrl = new URL(url);
  } catch {
    throw new UsageError(`\`--url\` takes an http(s) URL, got \`${url}\``);
  }
  if (parsedUrl.protocol !== 'http:' && parsedUrl.protocol !== 'https:') {
    throw new UsageError(`\`--url\` takes an http(s) URL, got \`${url}\``);
  }
  const headers: Record<string, string> = {};
  for (const header of listOption(parsed, 'header')) {
    const colon = header.indexOf(':');
    if (colon <= 0) throw new UsageError(`\`--header\` takes \`NAME: VALUE\`, got \`${header}\``);
    headers[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
  }
  return { kind: 'url', url: parsedUrl, headers };
}

function listenOf(parsed: ParsedOptions, env: NodeJS.ProcessEnv): ListenOptions | undefined {
  const listen = stringOption(parsed, 'listen');
  if (listen === undefined) return undefined;
  const match = /^(.+):(\d{1,5})$/.exec(listen);
  const port = Number(match?.[2]);
  if (match === null || port > 65_535) throw new UsageError(`\`--listen\` takes HOST:PORT, got \`${listen}\``);
  const host = (match[1] as string).replace(/^\[(.*)\]$/, '$1');
  const tokenEnv = stringOption(parsed, 'token-env') ?? 'HYPHAE_MCP_TOKEN';
  const token = env[tokenEnv] === '' ? undefined : env[tokenEnv];
  if (token === undefined && !isLoopback(host)) {
    throw new UsageError(`\`--listen ${listen}\` is not loopback: set a bearer token in \`${tokenEnv}\``);
  }
  return { host, port, token };
}

async function run(args: readonly string[], ctx: CommandContext): Promise<number> {
  if (args[0] === 'approve' || args[0] === 'reject') return review(args[0], args.slice(1), ctx);
  const split = args.indexOf('--');
  const parsed = parseOptions('mcp', split < 0 ? args : args.slice(0, split), RUN_SPEC);
  if (parsed.positionals.length > 0) throw new UsageError(`Unexpected \`${parsed.positionals[0]}\` before \`--\``);
  const target = targetOf(parsed, split < 0 ? undefined : args.slice(split + 1));
  const listen = listenOf(parsed, ctx.env);
  const config = await configFor(stringOption(parsed, 'config'), ctx);
  if (config === null) return ExitCode.failed;
  if (config === undefined) {
    ctx.err.line('hyphae mcp: no hyphae.yaml; safe defaults, no ledger (retries are not deduplicated)');
  }
  const overrides = { principal: stringOption(parsed, 'principal'), session: stringOption(parsed, 'session') };
  return runProxy(target, listen, config, overrides, ctx);
}

/** `hyphae mcp`. */
export const mcpCommand: Command = {
  name: 'mcp',
  summary: 'guarding proxy in front of an MCP server',
  help: HELP,
  run,
};
