/**
 * `hyphae.yaml` text to settings: YAML syntax, the schema, then the cross-section rules. Pure: no
 * file, network or environment access (an `env` to check against is passed in as data).
 */
import { type Document, LineCounter, parseDocument } from 'yaml';
import { InvalidArgumentError, kindOf, optionsOf } from '../invalid-argument.js';
import { storeDriver } from '../storage/drivers.js';
import { findDuplicateKeys } from './duplicate-keys.js';
import { ConfigError, type ConfigIssue } from './errors.js';
import { formatPath, locate, type PositionTarget } from './locate.js';
import { checkRules } from './rules.js';
import { configNode } from './schema/config-node.js';
import type { ConfigPathSegment, NodeIssue } from './schema/nodes.js';
import type { ConfigSettings, ValueSource } from './types.js';

/** Environment variables, as `process.env` holds them. */
export type ConfigEnv = Readonly<Record<string, string | undefined>>;

/** Options of {@link validateConfig} and {@link parseConfig}. */
export interface ParseConfigOptions {
  /** The file name used in messages. Default `<inline>`. */
  readonly file?: string;
  /** Directory relative paths resolve against (normally the config file's). Default the working directory. */
  readonly baseDir?: string;
  /** When given, every `*_env` the config names must be set in it. */
  readonly env?: ConfigEnv;
  /**
   * The largest config accepted, in UTF-8 bytes; a longer one is one issue, not parsed. Default
   * {@link DEFAULT_MAX_CONFIG_BYTES}; `Infinity` turns the limit off.
   */
  readonly maxBytes?: number;
}

/** The default size limit of a config text: 8 MiB, far above any hand-written `hyphae.yaml`. */
export const DEFAULT_MAX_CONFIG_BYTES = 8_388_608;

/** Alias expansions allowed when a document becomes values; past it a YAML alias bomb is refused. */
const MAX_ALIAS_COUNT = 100;

/** The outcome of {@link validateConfig}. */
export type ConfigValidation =
  | { readonly ok: true; readonly value: ConfigSettings }
  | { readonly ok: false; readonly issues: readonly ConfigIssue[] };

/** A parsed document: its settings when they passed, its issues, and a way to place more issues. */
export interface ConfigAnalysis {
  readonly settings: ConfigSettings | undefined;
  readonly issues: readonly ConfigIssue[];
  /** Turn a finding about a key path into an issue with a line and column. */
  place(issue: NodeIssue): ConfigIssue;
}

function byPosition(a: ConfigIssue, b: ConfigIssue): number {
  return a.line - b.line || a.column - b.column;
}

/** The `*_env` names the settings read, with the key that names each. */
export function envReferences(settings: ConfigSettings): [path: ConfigPathSegment[], name: string][] {
  const found: [ConfigPathSegment[], string][] = [];
  const add = (source: ValueSource | { readonly file: string } | undefined, path: ConfigPathSegment[]): void => {
    if (source !== undefined && 'env' in source) found.push([path, source.env]);
  };
  const stores = [
    ['action_ledger', settings.actionLedger?.store],
    ['task_ledger', settings.taskLedger?.store],
  ] as const;
  for (const [section, store] of stores) {
    if (store === undefined || store === 'action_ledger') continue;
    // Each secret the store's driver names is written `<field>` or `<field>_env` in the config.
    for (const field of storeDriver(store.kind).secretFields) {
      add((store as unknown as Record<string, ValueSource>)[field], [section, `${field}_env`]);
    }
  }
  add(settings.receipts?.key, ['receipts', 'key_env']);
  return found;
}

function checkEnv(settings: ConfigSettings, env: ConfigEnv): NodeIssue[] {
  return envReferences(settings)
    .filter(([, name]) => env[name] === undefined || env[name] === '')
    .map(([path, name]) => ({ path, target: 'value', message: `Environment variable \`${name}\` is not set` }));
}

/** The size limit of `options.maxBytes`, checked; `fn` is named in the error. */
export function maxConfigBytes(fn: string, maxBytes: unknown): number {
  if (maxBytes === undefined) return DEFAULT_MAX_CONFIG_BYTES;
  if (
    typeof maxBytes === 'number' &&
    (maxBytes === Number.POSITIVE_INFINITY || (Number.isSafeInteger(maxBytes) && maxBytes > 0))
  )
    return maxBytes;
  throw new InvalidArgumentError(
    fn,
    'options.maxBytes',
    `must be a positive integer or Infinity, got ${kindOf(maxBytes)}`,
  );
}

/** The issue of a config larger than `maxBytes`, or undefined; linear, and cheap for short texts. */
export function sizeIssue(bytes: number, maxBytes: number): ConfigIssue | undefined {
  if (bytes <= maxBytes) return undefined;
  const message = `Config is ${bytes} bytes, more than the limit of ${maxBytes} (raise \`maxBytes\` to load it)`;
  return { path: '', line: 1, column: 1, message };
}

function textIssue(text: string, maxBytes: number): ConfigIssue | undefined {
  // Three UTF-8 bytes at most per UTF-16 unit: most texts are cleared without counting.
  if (text.length * 3 <= maxBytes) return undefined;
  return sizeIssue(Buffer.byteLength(text, 'utf8'), maxBytes);
}

function failed(issues: ConfigIssue[], place: ConfigAnalysis['place']): ConfigAnalysis {
  return { settings: undefined, issues: issues.sort(byPosition), place };
}

/** Parse and check `text`; never throws for a bad config (a bad argument is an `InvalidArgumentError`). */
export function analyzeConfig(text: string, options: ParseConfigOptions = {}, fn = 'analyzeConfig'): ConfigAnalysis {
  if (typeof text !== 'string') throw new InvalidArgumentError(fn, 'text', `must be a string, got ${kindOf(text)}`);
  const read = optionsOf(fn, options, true);
  const maxBytes = maxConfigBytes(fn, read.maxBytes);
  const lines = new LineCounter();
  const tooLarge = textIssue(text, maxBytes);
  const noPlace = (issue: NodeIssue): ConfigIssue => ({
    path: formatPath(issue.path),
    line: 1,
    column: 1,
    message: issue.message,
  });
  if (tooLarge !== undefined) return failed([tooLarge], noPlace);
  // `uniqueKeys: false`: the package's check is quadratic per mapping; `findDuplicateKeys` is not.
  const document: Document = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: false });
  const place = (issue: NodeIssue): ConfigIssue => {
    const at: PositionTarget = issue.target;
    const { line, column } = locate(document, lines, issue.path, at);
    return { path: formatPath(issue.path), line, column, message: issue.message };
  };
  const at = (offset: number, message: string): ConfigIssue => {
    const { line, col } = lines.linePos(offset);
    return { path: '', line, column: col, message };
  };
  const syntax = document.errors.map((error) => at(error.pos[0], `YAML syntax: ${error.message}`));
  for (const { key, offset } of findDuplicateKeys(document)) {
    syntax.push(at(offset, `YAML syntax: Map keys must be unique; \`${key.slice(0, 80)}\` appears twice`));
  }
  if (syntax.length > 0) return failed(syntax, place);
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) ?? {};
  } catch (error) {
    // The package throws (a `ReferenceError`) on an alias bomb, the one input it refuses this way.
    const reason = error instanceof Error ? error.message : String(error);
    return failed([at(0, `YAML aliases expand too far (more than ${MAX_ALIAS_COUNT} expansions): ${reason}`)], place);
  }
  const node = configNode();
  const found: NodeIssue[] = [];
  node.check(value, [], found);
  let settings: ConfigSettings | undefined;
  if (found.length === 0) {
    settings = node.parse(value, { baseDir: read.baseDir ?? process.cwd() });
    found.push(...checkRules(settings));
    if (read.env !== undefined) found.push(...checkEnv(settings, read.env));
  }
  const issues = found.map(place).sort(byPosition);
  return { settings: issues.length === 0 ? settings : undefined, issues, place };
}

/**
 * Check a config text and parse it to settings. Never throws for a bad config: every problem is an
 * issue with its key path, line and column, including a text over `maxBytes` and a YAML alias bomb.
 * Only a call it cannot read throws: a `text` that is not a string, or bad options, raise
 * `InvalidArgumentError` (`invalid_argument`).
 *
 * @example
 * const result = validateConfig('profile: staging\n');
 * // result.ok === false; result.issues[0]: { path: 'profile', line: 1, column: 10,
 * //   message: 'Expected one of `development`, `production`, got `staging`' }
 */
export function validateConfig(text: string, options: ParseConfigOptions = {}): ConfigValidation {
  const { settings, issues } = analyzeConfig(text, options, 'validateConfig');
  return settings === undefined ? { ok: false, issues } : { ok: true, value: settings };
}

/**
 * Parse a config text to settings; throws {@link ConfigError} listing every problem.
 *
 * @example
 * const settings = parseConfig(readFileSync('hyphae.yaml', 'utf8'), { file: 'hyphae.yaml', baseDir: '.' });
 */
export function parseConfig(text: string, options: ParseConfigOptions = {}): ConfigSettings {
  const { settings, issues } = analyzeConfig(text, options, 'parseConfig');
  if (settings === undefined) throw new ConfigError(optionsOf('parseConfig', options, true).file ?? '<inline>', issues);
  return settings;
}
