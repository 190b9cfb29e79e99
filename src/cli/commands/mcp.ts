/**
 * `hyphae mcp`: the guarding proxy in front of an MCP server, and `hyphae mcp approve` for a tool
 * whose changed definition was quarantined.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { createPinStore } from '../../adapters/mcp/pins.js';
import type { HyphaeConfig } from '../../config/create-config.js';
import { type Command, type CommandContext, ExitCode, UsageError } from '../command.js';
import { DEFAULT_CONFIG_FILE, loadCommandConfig } from '../lib/config-ledgers.js';
import { type OptionSpec, parseOptions, stringOption } from '../lib/parse-options.js';
import { runStdioProxy } from '../mcp/run-stdio-proxy.js';

const HELP = `Usage: hyphae mcp [options] -- <command> [args…]
       hyphae mcp approve TOOL --server NAME --by WHO [-c FILE]

Runs <command> as an MCP server over stdio and serves it to the client on this process's stdio,
with every tools/call guarded: allow list, permissions, loop and budget fuses, argument and output
validation, the ledger (a retried call gets the stored result), tool pinning, secret scanning.
Everything else (resources, prompts, sampling, logging, progress) passes through unchanged.

Subcommands:
  approve TOOL --server NAME --by WHO
        approve the changed definition of a quarantined tool of the server NAME (its
        serverInfo.name); the next listing shows it again

Options:
  -c, --config FILE     the config (default ./hyphae.yaml; without one: safe defaults, no ledger)
  --principal NAME      who calls (overrides mcp.principal)
  --session NAME        the session a retried call must share (overrides mcp.session)

Exit codes: 0 ok, 1 refused or the config cannot load, 2 usage
`;

const RUN_SPEC: Readonly<Record<string, OptionSpec>> = {
  config: { type: 'string', short: 'c' },
  principal: { type: 'string' },
  session: { type: 'string' },
};

const APPROVE_SPEC: Readonly<Record<string, OptionSpec>> = {
  config: { type: 'string', short: 'c' },
  server: { type: 'string' },
  by: { type: 'string' },
};

async function configFor(file: string | undefined, ctx: CommandContext): Promise<HyphaeConfig | undefined | null> {
  const path = file ?? DEFAULT_CONFIG_FILE;
  if (file === undefined && !existsSync(resolve(ctx.cwd, path))) return undefined;
  return (await loadCommandConfig(path, ctx)) ?? null;
}

async function approve(args: readonly string[], ctx: CommandContext): Promise<number> {
  const parsed = parseOptions('mcp approve', args, APPROVE_SPEC);
  const [tool, extra] = parsed.positionals;
  const server = stringOption(parsed, 'server');
  const by = stringOption(parsed, 'by');
  if (tool === undefined || extra !== undefined) throw new UsageError('`hyphae mcp approve` takes one TOOL');
  if (server === undefined || by === undefined) throw new UsageError('`hyphae mcp approve` needs --server and --by');
  const config = await configFor(stringOption(parsed, 'config') ?? DEFAULT_CONFIG_FILE, ctx);
  if (config === null || config === undefined) return ExitCode.failed;
  try {
    if (config.ledger === undefined) {
      ctx.err.line('The config has no `action_ledger`: there are no pins to approve');
      return ExitCode.failed;
    }
    const approved = await createPinStore(config.ledger.storage).approve(server, tool, by);
    if (!approved) {
      ctx.err.line(`Tool \`${tool}\` of \`${server}\` has no changed definition waiting for approval`);
      return ExitCode.failed;
    }
    ctx.out.line(`Approved the new definition of \`${tool}\` of \`${server}\``);
    return ExitCode.ok;
  } finally {
    await config.close();
  }
}

async function run(args: readonly string[], ctx: CommandContext): Promise<number> {
  if (args[0] === 'approve') return approve(args.slice(1), ctx);
  const split = args.indexOf('--');
  if (split < 0) throw new UsageError('`hyphae mcp` needs the server command after `--`');
  const [command, ...commandArgs] = args.slice(split + 1);
  if (command === undefined) throw new UsageError('`hyphae mcp` needs the server command after `--`');
  const parsed = parseOptions('mcp', args.slice(0, split), RUN_SPEC);
  if (parsed.positionals.length > 0) throw new UsageError(`Unexpected \`${parsed.positionals[0]}\` before \`--\``);
  const config = await configFor(stringOption(parsed, 'config'), ctx);
  if (config === null) return ExitCode.failed;
  if (config === undefined)
    ctx.err.line('hyphae mcp: no hyphae.yaml; safe defaults, no ledger (retries are not deduplicated)');
  return runStdioProxy(
    { command, args: commandArgs },
    config,
    {
      principal: stringOption(parsed, 'principal'),
      session: stringOption(parsed, 'session'),
    },
    ctx,
  );
}

/** `hyphae mcp`. */
export const mcpCommand: Command = {
  name: 'mcp',
  summary: 'guarding proxy in front of an MCP server',
  help: HELP,
  run,
};
