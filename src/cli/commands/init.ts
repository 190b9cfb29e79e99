/**
 * `hyphae init`: write a `hyphae.yaml` to start from.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, relative, resolve, sep } from 'node:path';
import { validateConfig } from '../../config/parse-config.js';
import { SCHEMA_FILE_NAME } from '../../config/schema/config-node.js';
import { type Command, ExitCode, UsageError } from '../command.js';
import { type InitTemplate, RECEIPT_KEY_ENV, renderInitTemplate } from '../lib/init-templates.js';
import { flag, parseOptions, stringOption } from '../lib/parse-options.js';

/** The options of `hyphae init`. */
export interface InitArgs {
  readonly output: string;
  readonly template: InitTemplate;
  readonly force: boolean;
}

/** Parse the arguments of `hyphae init`. */
export function parseInitArgs(args: readonly string[]): InitArgs {
  const parsed = parseOptions('init', args, {
    output: { type: 'string', short: 'o' },
    full: { type: 'boolean' },
    minimal: { type: 'boolean' },
    force: { type: 'boolean' },
  });
  if (parsed.positionals.length > 0) {
    throw new UsageError(`\`hyphae init\` takes no arguments, got \`${parsed.positionals[0]}\` (use \`-o FILE\`)`);
  }
  if (flag(parsed, 'full') && flag(parsed, 'minimal')) throw new UsageError('Choose one of `--full` and `--minimal`');
  const template: InitTemplate = flag(parsed, 'full') ? 'full' : flag(parsed, 'minimal') ? 'minimal' : 'onramp';
  return { output: stringOption(parsed, 'output') ?? 'hyphae.yaml', template, force: flag(parsed, 'force') };
}

/** Where editors find the schema from `file`: the installed package, next to the project's `node_modules`. */
export function schemaReference(file: string, projectDir: string): string {
  const target = resolve(projectDir, 'node_modules', 'hyphae', SCHEMA_FILE_NAME);
  const path = relative(dirname(file), target).split(sep).join('/');
  return path.startsWith('.') ? path : `./${path}`;
}

const NAMES: Readonly<Record<InitTemplate, string>> = {
  onramp: 'the on-ramp: one ledgered tool on SQLite',
  full: 'the full reference',
  minimal: 'the minimal config',
};

/** `hyphae init`. */
export const initCommand: Command = {
  name: 'init',
  summary: 'write a hyphae.yaml to start from',
  help: `Usage: hyphae init [-o FILE] [--full | --minimal] [--force]

Writes a config file that \`loadConfig\` loads as it is, with a schema line for editors
(completion and checking through yaml-language-server and hyphae.schema.json):

  (default)   the on-ramp: a transition ledger on embedded SQLite, one ledgered tool, TODOs
  --full      the full reference: every section, each key commented
  --minimal   the smallest config, without comments

Options:
  -o, --output FILE   where to write (default ./hyphae.yaml)
  --force             overwrite an existing file

Exit codes: 0 written, 1 the file exists (pass --force), 2 usage
`,
  async run(args, ctx) {
    const options = parseInitArgs(args);
    const file = resolve(ctx.cwd, options.output);
    const text = renderInitTemplate(options.template, schemaReference(file, ctx.cwd));
    const check = validateConfig(text, { file: options.output, baseDir: dirname(file) });
    if (!check.ok) throw new Error(`hyphae init produced an invalid config: ${check.issues[0]?.message ?? ''}`);
    await mkdir(dirname(file), { recursive: true });
    try {
      await writeFile(file, text, { flag: options.force ? 'w' : 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      ctx.err.line(`${ctx.err.fail('Refused')}: \`${options.output}\` exists; pass \`--force\` to overwrite it`);
      return ExitCode.failed;
    }
    ctx.out.line(`${ctx.out.pass('Wrote')} ${options.output} (${NAMES[options.template]})`);
    if (options.template === 'full') {
      ctx.out.line(
        `Set ${RECEIPT_KEY_ENV} before loading it, e.g. \`export ${RECEIPT_KEY_ENV}=$(openssl rand -base64 48)\``,
      );
    }
    if (options.template === 'onramp') ctx.out.line('Fill in the TODOs, then run `hyphae doctor`');
    else ctx.out.line('Check it with `hyphae doctor`');
    return ExitCode.ok;
  },
};
