/**
 * `hyphae migrate`: convert a mycelium-runtime config to a hyphae.yaml.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { type MigrationNote, migrateMyceliumConfig } from '../../config/migrate/migrate-mycelium.js';
import { type Command, ExitCode, UsageError } from '../command.js';
import { flag, parseOptions, stringOption } from '../lib/parse-options.js';
import type { Output } from '../output.js';
import { schemaReference } from './init.js';

/** The options of `hyphae migrate`. */
export interface MigrateArgs {
  readonly source: string;
  readonly output: string | undefined;
  readonly force: boolean;
}

/** Parse the arguments of `hyphae migrate`. */
export function parseMigrateArgs(args: readonly string[]): MigrateArgs {
  const parsed = parseOptions('migrate', args, { output: { type: 'string', short: 'o' }, force: { type: 'boolean' } });
  const [source, extra] = parsed.positionals;
  if (source === undefined) throw new UsageError('`hyphae migrate` needs the mycelium config to convert');
  if (extra !== undefined) throw new UsageError(`\`hyphae migrate\` takes one file, got \`${extra}\` as well`);
  return { source, output: stringOption(parsed, 'output'), force: flag(parsed, 'force') };
}

const LABEL: Readonly<Record<MigrationNote['kind'], string>> = {
  converted: 'converted',
  added: 'added',
  dropped: 'not carried',
};

function report(out: Output, source: string, notes: readonly MigrationNote[]): void {
  for (const kind of ['dropped', 'converted', 'added'] as const) {
    const list = notes.filter((note) => note.kind === kind);
    if (list.length === 0) continue;
    out.line(kind === 'dropped' ? out.bold(`Not carried (${list.length}):`) : `${LABEL[kind]} (${list.length}):`);
    for (const note of list) {
      const where = note.line > 0 ? `${source}:${note.line} ` : '';
      out.line(`  ${where}\`${note.path}\`: ${note.message}`);
    }
  }
}

/** `hyphae migrate`. */
export const migrateCommand: Command = {
  name: 'migrate',
  summary: 'convert a mycelium-runtime config to a hyphae.yaml',
  help: `Usage: hyphae migrate MYCELIUM_YAML [-o FILE] [--force]

Converts a mycelium-runtime config (mycelium.yaml) to a hyphae.yaml that loads: comments stay with
the keys they describe, durations given in seconds are written with their unit (3600 → 1h), and
every key that could not be carried is listed with the reason (on standard error). Without -o the
converted file goes to standard output.

Options:
  -o, --output FILE   where to write the hyphae.yaml
  --force             overwrite an existing file

Exit codes: 0 converted and the result loads, 1 it does not load (its problems are listed) or the
file exists, 2 usage
`,
  async run(args, ctx) {
    const options = parseMigrateArgs(args);
    const sourcePath = resolve(ctx.cwd, options.source);
    let text: string;
    try {
      text = await readFile(sourcePath, 'utf8');
    } catch (error) {
      ctx.err.line(`${ctx.err.fail('Refused')}: cannot read \`${options.source}\` (${(error as Error).message})`);
      return ExitCode.failed;
    }
    const target = options.output === undefined ? undefined : resolve(ctx.cwd, options.output);
    const baseDir = dirname(target ?? sourcePath);
    const migration = migrateMyceliumConfig(text, {
      file: options.source,
      baseDir,
      schemaRef: schemaReference(target ?? resolve(baseDir, 'hyphae.yaml'), ctx.cwd),
    });
    report(ctx.err, options.source, migration.notes);
    if (migration.issues.length > 0) {
      const count = migration.issues.length;
      ctx.err.line(ctx.err.fail(`The converted config does not load (${count} problem${count === 1 ? '' : 's'}):`));
      for (const issue of migration.issues)
        ctx.err.line(`  hyphae.yaml:${issue.line}:${issue.column} \`${issue.path}\`: ${issue.message}`);
    }
    if (target === undefined) {
      ctx.out.line(migration.text.trimEnd());
    } else {
      await mkdir(dirname(target), { recursive: true });
      try {
        await writeFile(target, migration.text, { flag: options.force ? 'w' : 'wx' });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        ctx.err.line(`${ctx.err.fail('Refused')}: \`${options.output}\` exists; pass \`--force\` to overwrite it`);
        return ExitCode.failed;
      }
      ctx.err.line(`${ctx.err.pass('Wrote')} ${options.output}; check it with \`hyphae doctor -c ${options.output}\``);
    }
    return migration.issues.length > 0 ? ExitCode.failed : ExitCode.ok;
  },
};
