#!/usr/bin/env node
/**
 * The `hyphae` command line.
 */
import { readFileSync } from 'node:fs';
import { GuardError } from '../errors.js';
import { type Command, type CommandContext, ExitCode, UsageError } from './command.js';
import { dashboardCommand } from './commands/dashboard.js';
import { demoCommand } from './commands/demo.js';
import { doctorCommand } from './commands/doctor.js';
import { initCommand } from './commands/init.js';
import { mcpCommand } from './commands/mcp.js';
import { migrateCommand } from './commands/migrate.js';
import { receiptsCommand } from './commands/receipts.js';
import { transitionsCommand } from './commands/transitions.js';
import { verifyCommand } from './commands/verify.js';
import { describeError } from './lib/describe-error.js';
import { createOutput } from './output.js';

/** Every command, in the order `hyphae help` lists them. */
const COMMANDS: readonly Command[] = [
  initCommand,
  demoCommand,
  transitionsCommand,
  receiptsCommand,
  doctorCommand,
  dashboardCommand,
  mcpCommand,
  migrateCommand,
  verifyCommand,
];

function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  const lines = COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return `Usage: hyphae <command> [options]

Commands:
${lines.join('\n')}
  help [COMMAND]  show help

Options:
  --version       print the version

Exit codes: 0 ok, 1 a check failed, 2 usage
`;
}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

async function main(argv: readonly string[]): Promise<number> {
  const ctx: CommandContext = {
    out: createOutput(process.stdout),
    err: createOutput(process.stderr),
    cwd: process.cwd(),
    env: process.env,
  };
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-v') {
    ctx.out.line(version());
    return ExitCode.ok;
  }
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    const topic = COMMANDS.find((c) => c.name === rest[0]);
    process.stdout.write(topic?.help ?? usage());
    return ExitCode.ok;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (command === undefined) {
    process.stderr.write(`Unknown command \`${name}\`\n\n${usage()}`);
    return ExitCode.usage;
  }
  // After `--` the arguments belong to another program (`hyphae mcp -- server --help`).
  const own = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
  if (own.includes('--help') || own.includes('-h')) {
    process.stdout.write(command.help);
    return ExitCode.ok;
  }
  try {
    return await command.run(rest, ctx);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n\n${command.help}`);
      return ExitCode.usage;
    }
    throw error;
  }
}

// A reader that goes away (`hyphae demo | head`) is not an error of ours.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // A refusal of ours is said with its cause; anything else is a bug, shown with its stack.
    const text =
      error instanceof GuardError
        ? describeError(error)
        : error instanceof Error
          ? (error.stack ?? error.message)
          : String(error);
    process.stderr.write(`${text}\n`);
    process.exitCode = 1;
  },
);
