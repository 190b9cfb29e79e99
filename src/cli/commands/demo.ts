/**
 * `hyphae demo`: the transition ledger's main job.
 */
import { type Command, ExitCode, UsageError } from '../command.js';
import { type DemoOptions, DemoStoreError, runDemo } from '../demo/run-demo.js';

/** Demo options from its arguments. */
export function parseDemoArgs(args: readonly string[]): DemoOptions {
  let keep = false;
  let backend: DemoOptions['backend'];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--keep') {
      keep = true;
    } else if (arg === '--redis' || arg === '--postgres') {
      const url = args[i + 1];
      if (url === undefined || url.startsWith('--')) throw new UsageError(`\`${arg}\` needs a URL`);
      if (backend !== undefined) throw new UsageError('Choose one of `--redis` and `--postgres`');
      // The demo's own prefix, so its records stay apart from any ledger on the same server.
      backend =
        arg === '--redis'
          ? { kind: 'redis', url, prefix: 'hyphae-demo:' }
          : { kind: 'postgres', dsn: url, tablePrefix: 'hyphae_demo_' };
      i++;
    } else {
      throw new UsageError(`Unknown option \`${arg}\` for \`hyphae demo\``);
    }
  }
  return backend === undefined ? { keep } : { keep, backend };
}

/** `hyphae demo`. */
export const demoCommand: Command = {
  name: 'demo',
  summary: "run the transition ledger's main job (embedded SQLite by default)",
  help: `Usage: hyphae demo [--keep] [--redis URL | --postgres URL]

Runs the transition ledger's main job step by step and prints PASS or FAIL for each:
a redispatched subagent call, a payment killed inside sideEffect, a reconciler that proves
NOT_EXECUTED, and a read that retries after UNKNOWN.

Options:
  --keep            keep the temp folder
  --redis URL       run on a shared Redis ledger (adds a two-process step)
  --postgres URL    run on a shared PostgreSQL ledger (adds a two-process step)

The embedded ledger needs a SQLite driver: Node's node:sqlite where the runtime has it, else
better-sqlite3 (\`npm install better-sqlite3\`); --redis needs \`redis\`, --postgres needs \`pg\`.
Without it the demo says so on one line and runs nothing.

Exit codes: 0 every step passed, 1 a step failed or the store could not be opened, 2 usage
`,
  async run(args, ctx) {
    const options = parseDemoArgs(args);
    try {
      return (await runDemo(ctx.out, options)) ? ExitCode.ok : ExitCode.failed;
    } catch (error) {
      if (!(error instanceof DemoStoreError)) throw error;
      ctx.err.line(ctx.err.fail(error.message));
      return ExitCode.failed;
    }
  },
};
