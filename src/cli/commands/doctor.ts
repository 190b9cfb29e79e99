/**
 * `hyphae doctor`: load the config, connect to every store, check schema versions and the receipt
 * key, and report each item as ok or failed with its fix.
 */
import { type Command, ExitCode, UsageError } from '../command.js';
import { DEFAULT_CONFIG_FILE } from '../lib/config-ledgers.js';
import { runDoctorChecks } from '../lib/doctor-checks.js';
import type { DoctorItem } from '../lib/doctor-item.js';
import { flag, parseOptions, stringOption } from '../lib/parse-options.js';
import type { Output } from '../output.js';

function printItems(out: Output, items: readonly DoctorItem[]): void {
  const width = Math.max(...items.map((item) => item.name.length));
  for (const item of items) {
    const status = item.ok ? out.pass('ok  ') : out.fail('FAIL');
    const [first = '', ...rest] = item.detail.split('\n');
    out.line(`${status}  ${item.name.padEnd(width)}  ${first}`);
    for (const line of rest) out.line(`      ${' '.repeat(width)}  ${line}`);
    if (!item.ok && item.fix !== undefined) out.line(`      ${' '.repeat(width)}  ${out.dim('fix:')} ${item.fix}`);
  }
}

/** `hyphae doctor`. */
export const doctorCommand: Command = {
  name: 'doctor',
  summary: 'check the config, its stores and its signing key',
  help: `Usage: hyphae doctor [-c FILE] [--deep] [--timeout MS] [--json]

Loads the config, checks the environment variables it names, connects to every store it names
(ledgers, run snapshots, receipt sink), checks that each schema version is one this hyphae reads
(creating missing tables, as the first operation would; a missing SQLite file is not created), and
checks that the receipt key is usable. Prints each item as ok or FAIL, with the fix.

With --deep, also runs SQLite's full \`PRAGMA integrity_check\` on every SQLite file the config
names: it reads every index against its table and so finds damage the ledger's own checks may
not see (a hidden record), at the cost of reading the whole file (about 2 s for 100,000 records;
it only reads, so agents keep running). Run it after a crash of the host, a restore or a copy of
the file, and on a schedule.

Options:
  -c, --config FILE   the config (default ./hyphae.yaml)
  --deep              also run SQLite's integrity_check on every SQLite file
  --timeout MS        how long a store may take to answer (default 5000)
  --json              print the items as JSON

Exit codes: 0 every check passed, 1 a check failed, 2 usage
`,
  async run(args, ctx) {
    const parsed = parseOptions('doctor', args, {
      config: { type: 'string', short: 'c' },
      timeout: { type: 'string' },
      json: { type: 'boolean' },
      deep: { type: 'boolean' },
    });
    if (parsed.positionals.length > 0) throw new UsageError(`\`hyphae doctor\` takes no arguments (use \`-c FILE\`)`);
    const timeoutText = stringOption(parsed, 'timeout') ?? '5000';
    const timeoutMs = Number(timeoutText);
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1) {
      throw new UsageError(`\`--timeout\` takes a positive number of milliseconds, got \`${timeoutText}\``);
    }
    const file = stringOption(parsed, 'config') ?? DEFAULT_CONFIG_FILE;
    const items = await runDoctorChecks(file, ctx.cwd, ctx.env, timeoutMs, { deep: flag(parsed, 'deep') });
    const failed = items.filter((item) => !item.ok).length;
    if (flag(parsed, 'json')) {
      ctx.out.line(JSON.stringify({ ok: failed === 0, items }, null, 2));
    } else {
      printItems(ctx.out, items);
      ctx.out.line(
        failed === 0 ? ctx.out.pass('All checks passed') : ctx.out.fail(`${failed} of ${items.length} checks failed`),
      );
    }
    return failed === 0 ? ExitCode.ok : ExitCode.failed;
  },
};
