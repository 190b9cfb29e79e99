#!/usr/bin/env node
/**
 * The `hyphae` command line.
 */
import { readFileSync } from 'node:fs';
import { runDemo } from './demo/run-demo.js';
import { createOutput } from './output.js';

const USAGE = `Usage: hyphae <command> [options]

Commands:
  demo [--keep]     run the transition ledger's main job on an embedded SQLite ledger
  help              show this help

Options:
  --version         print the version
`;

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

async function main(argv: readonly string[]): Promise<number> {
  const out = createOutput();
  const [command, ...rest] = argv;
  switch (command) {
    case 'demo': {
      const unknown = rest.filter((arg) => arg !== '--keep');
      if (unknown.length > 0) {
        process.stderr.write(`Unknown option \`${unknown[0]}\` for \`hyphae demo\`\n\n${USAGE}`);
        return 2;
      }
      return (await runDemo(out, { keep: rest.includes('--keep') })) ? 0 : 1;
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

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
