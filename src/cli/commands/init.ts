/**
 * `hyphae init`: write a `hyphae.yaml` to start from.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, relative, resolve, sep } from 'node:path';
import { validateConfig } from '../../config/parse-config.js';
import { SCHEMA_FILE_NAME } from '../../config/schema/config-node.js';
import { type Command, ExitCode, UsageError } from '../command.js';
import { DEFAULT_CONFIG_FILE } from '../lib/config-ledgers.js';
import { initStores } from '../lib/init-stores.js';
import { type InitTemplate, RECEIPT_KEY_ENV, renderInitTemplate } from '../lib/init-templates.js';
import { flag, parseOptions, stringOption } from '../lib/parse-options.js';

/** The options of `hyphae init`. */
export interface InitArgs {
  readonly output: string;
  readonly template: InitTemplate;
  readonly force: boolean;
  /** `--stores`: initialise the ledger stores of the config at this path instead of writing one. */
  readonly stores?: string;
}

/** Parse the arguments of `hyphae init`. */
export function parseInitArgs(args: readonly string[]): InitArgs {
  const parsed = parseOptions('init', args, {
    output: { type: 'string', short: 'o' },
    full: { type: 'boolean' },
    minimal: { type: 'boolean' },
    force: { type: 'boolean' },
    stores: { type: 'boolean' },
    config: { type: 'string', short: 'c' },
  });
  if (parsed.positionals.length > 0) {
    throw new UsageError(`\`hyphae init\` takes no arguments, got \`${parsed.positionals[0]}\` (use \`-o FILE\`)`);
  }
  if (flag(parsed, 'full') && flag(parsed, 'minimal')) throw new UsageError('Choose one of `--full` and `--minimal`');
  const template: InitTemplate = flag(parsed, 'full') ? 'full' : flag(parsed, 'minimal') ? 'minimal' : 'onramp';
  const config = stringOption(parsed, 'config');
  if (flag(parsed, 'stores')) {
    const writing = ['output', 'full', 'minimal', 'force'].filter((name) => parsed.values[name] !== undefined);
    if (writing.length > 0)
      throw new UsageError(`\`--stores\` reads a config (\`-c FILE\`); it takes no \`--${writing[0]}\``);
    return { output: 'hyphae.yaml', template, force: false, stores: config ?? DEFAULT_CONFIG_FILE };
  }
  if (config !== undefined) throw new UsageError('`-c FILE` goes with `--stores`; write a config with `-o FILE`');
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
       hyphae init --stores [-c FILE]

Writes a config file that \`loadConfig\` loads as it is, with a schema line for editors
(completion and checking through yaml-language-server and hyphae.schema.json):

  (default)   the on-ramp: a transition ledger on embedded SQLite, one ledgered tool, TODOs
  --full      the full reference: every section, each key commented
  --minimal   the smallest config, without comments

Options:
  -o, --output FILE   where to write (default ./hyphae.yaml)
  --force             overwrite an existing file

With --stores, writes no file: initialises the ledger stores of the config (default
./hyphae.yaml) once, at deploy time, and prints each ledger id. The production profile opens
stores with \`create: false\`, so a store emptied later is refused instead of started anew.

Exit codes: 0 written (or initialised), 1 the file exists (pass --force) or a store failed, 2 usage
`,
  async run(args, ctx) {
    const options = parseInitArgs(args);
    if (options.stores !== undefined) return initStores(options.stores, ctx);
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
