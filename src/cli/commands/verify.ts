/**
 * `hyphae verify`: the guard scenarios against the user's own config and a store of its own kind.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ledgeredTools } from '../../config/coverage.js';
import { openLedgerStorage } from '../../config/open-stores.js';
import { GuardError } from '../../errors.js';
import { type Command, ExitCode, UsageError } from '../command.js';
import { DEFAULT_CONFIG_FILE, loadCommandConfig } from '../lib/config-ledgers.js';
import { listOption, parseOptions, stringOption } from '../lib/parse-options.js';
import type { Output } from '../output.js';
import { isolatedStore } from '../verify/isolated-store.js';
import {
  ambiguousEffect,
  crashThenRedispatch,
  declarations,
  duplicateDispatch,
  loopScenario,
  refusedTool,
  type ScenarioResult,
  type ScenarioSetup,
} from '../verify/scenarios.js';

function print(out: Output, results: readonly ScenarioResult[]): void {
  const shown = new Set<string>();
  for (const r of results) {
    const mark = r.status === 'PASS' ? out.pass('PASS') : r.status === 'FAIL' ? out.fail('FAIL') : out.bold('WARN');
    out.line(`${mark} ${r.scenario}${r.tool === null ? '' : ` ${r.tool}`}: ${r.summary}`);
    // The same lines fix every tool's warning: print them once.
    if (r.fix !== undefined && !shown.has(r.fix)) {
      shown.add(r.fix);
      out.line('  add to the config:');
      for (const line of r.fix.split('\n')) out.line(`    ${line}`);
    }
  }
}

/** `hyphae verify`. */
export const verifyCommand: Command = {
  name: 'verify',
  summary: 'run the guard scenarios against this config and a store of its kind',
  help: `Usage: hyphae verify [-c FILE] [--tool NAME]... [--json FILE]

Runs the guard scenarios against the config's own tool declarations, with a synthetic provider
(never your tools' code), on a store of the config's own kind: a fresh SQLite file with the same
settings, or the same Redis or PostgreSQL server under a prefix of its own, removed afterwards.
Your transitions are never read or written.

Scenarios, for every ledgered tool (or each --tool): two dispatches of one call at once; a worker
killed inside its side effect, then a redispatch; a worker killed after its claim (a dead worker);
an ambiguous failure after the effect; a model repeating the call (the loop fuse). Once: a tool the
model was never granted, and tools whose names say they act but are declared \`read\`.

A guard the config does not configure (no \`registry\` or permission fuse, no loop fuse) is a WARN
that prints the lines to add; a configured guard that does not hold is a FAIL.

Options:
  -c, --config FILE   the config (default ./hyphae.yaml)
  --tool NAME         only these tools (repeatable)
  --json FILE         also write every result with its evidence as JSON

Exit codes: 0 no FAIL (WARNs included), 1 a FAIL (or the config or store could not be opened), 2 usage
`,
  async run(args, ctx) {
    const parsed = parseOptions('verify', args, {
      config: { type: 'string', short: 'c' },
      tool: { type: 'string', multiple: true },
      json: { type: 'string' },
    });
    if (parsed.positionals.length > 0)
      throw new UsageError(`\`hyphae verify\` takes no arguments, got \`${parsed.positionals[0]}\``);
    const file = stringOption(parsed, 'config') ?? DEFAULT_CONFIG_FILE;
    const config = await loadCommandConfig(file, ctx);
    if (config === undefined) return ExitCode.failed;
    const { settings } = config;
    const ledgered = ledgeredTools(settings);
    const chosen = listOption(parsed, 'tool');
    for (const name of chosen)
      if (!ledgered.includes(name)) throw new UsageError(`\`${name}\` is not a ledgered tool of \`${file}\``);
    const tools = chosen.length > 0 ? chosen : ledgered;
    const results: ScenarioResult[] = [
      ...declarations(settings, ledgered),
      refusedTool(settings, config.fuses, config.registry),
    ];
    const store = settings.actionLedger?.store;
    const scratch = await mkdtemp(join(tmpdir(), 'hyphae-verify-log-'));
    try {
      if (store !== undefined && tools.length > 0) {
        const isolated = await isolatedStore(store, ctx.env);
        const storage = await openLedgerStorage(isolated.settings, ctx.env);
        const setup: ScenarioSetup = {
          settings,
          store: isolated,
          storage,
          effectLog: join(scratch, 'effects.jsonl'),
          runId: `verify-${randomUUID().slice(0, 8)}`,
        };
        ctx.out.line(`Verifying ${tools.length} tool${tools.length === 1 ? '' : 's'} on ${isolated.describe}`);
        try {
          for (const tool of tools) {
            results.push(await duplicateDispatch(setup, tool));
            results.push(await crashThenRedispatch(setup, tool, 'after-effect'));
            results.push(await crashThenRedispatch(setup, tool, 'after-claim'));
            results.push(await ambiguousEffect(setup, tool));
            results.push(loopScenario(config.fuses, tool, settings.fuses?.loop !== undefined));
          }
        } finally {
          await storage.close();
          await isolated.cleanup();
        }
      } else if (tools.length === 0) {
        ctx.out.line('No ledgered tools: only the config-wide scenarios run');
      }
    } catch (error) {
      if (!(error instanceof GuardError)) throw error;
      ctx.err.line(`${ctx.err.fail('FAIL')} the verification store could not be used: ${error.message}`);
      return ExitCode.failed;
    } finally {
      await rm(scratch, { recursive: true, force: true });
      await config.close();
    }
    print(ctx.out, results);
    const count = (status: string) => results.filter((r) => r.status === status).length;
    const summary = { pass: count('PASS'), warn: count('WARN'), fail: count('FAIL') };
    ctx.out.line(`Verify: ${summary.pass} PASS, ${summary.warn} WARN, ${summary.fail} FAIL`);
    const jsonFile = stringOption(parsed, 'json');
    if (jsonFile !== undefined) {
      const report = { config: file, at: new Date().toISOString(), summary, results };
      await writeFile(resolve(ctx.cwd, jsonFile), `${JSON.stringify(report, null, 2)}\n`);
    }
    return summary.fail > 0 ? ExitCode.failed : ExitCode.ok;
  },
};
