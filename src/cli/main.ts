#!/usr/bin/env node
/**
 * The `hyphae` command line.
 */
import { readFileSync } from 'node:fs';
import { type DemoOptions, runDemo } from './demo/run-demo.js';
import { createOutput } from './output.js';

const USAGE = `Usage: hyphae <command> [options]

Commands:
  demo [--keep] [--redis URL | --postgres URL]
                    run the transition ledger's main job on an embedded SQLite ledger,
                    or on a shared Redis or PostgreSQL ledger (adds a two-process step)
  help              show this help

Options:
  --version         print the version
`;

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** Demo options, or the message that refuses them. */
function parseDemoArgs(args: readonly string[]): DemoOptions | string {
  let keep = false;
  let backend: DemoOptions['backend'];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--keep') {
      keep = true;
    } else if (arg === '--redis' || arg === '--postgres') {
      const url = args[i + 1];
      if (url === undefined || url.startsWith('--')) return `\`${arg}\` needs a URL`;
      if (backend !== undefined) return 'Choose one of `--redis` and `--postgres`';
      backend = arg === '--redis' ? { kind: 'redis', url } : { kind: 'postgres', url };
      i++;
    } else {
      return `Unknown option \`${arg}\` for \`hyphae demo\``;
    }
  }
  return backend === undefined ? { keep } : { keep, backend };
}

async function main(argv: readonly string[]): Promise<number> {
  const out = createOutput();
  const [command, ...rest] = argv;
  switch (command) {
    case 'demo': {
      const parsed = parseDemoArgs(rest);
      if (typeof parsed === 'string') {
        process.stderr.write(`${parsed}\n\n${USAGE}`);
        return 2;
      }
      return (await runDemo(out, parsed)) ? 0 : 1;
    }
    case '--version':
    case '-v':
      out.line(version());
      return 0;
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return 0;
    default:
      process.stderr.write(`Unknown command \`${command}\`\n\n${USAGE}`);
      return 2;
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
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
