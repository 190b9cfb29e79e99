/**
 * `hyphae.yaml` text to settings: YAML syntax, the schema, then the cross-section rules. Pure: no
 * file, network or environment access (an `env` to check against is passed in as data).
 */
import { type Document, LineCounter, parseDocument } from 'yaml';
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
}

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
    if (store.kind === 'redis') add(store.url, [section, 'url_env']);
    if (store.kind === 'postgres') add(store.dsn, [section, 'dsn_env']);
  }
  add(settings.receipts?.key, ['receipts', 'key_env']);
  return found;
}

function checkEnv(settings: ConfigSettings, env: ConfigEnv): NodeIssue[] {
  return envReferences(settings)
    .filter(([, name]) => env[name] === undefined || env[name] === '')
    .map(([path, name]) => ({ path, target: 'value', message: `Environment variable \`${name}\` is not set` }));
}

/** Parse and check `text`; never throws for a bad config. */
export function analyzeConfig(text: string, options: ParseConfigOptions = {}): ConfigAnalysis {
  const lines = new LineCounter();
  const document: Document = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const place = (issue: NodeIssue): ConfigIssue => {
    const at: PositionTarget = issue.target;
    const { line, column } = locate(document, lines, issue.path, at);
    return { path: formatPath(issue.path), line, column, message: issue.message };
  };
  if (document.errors.length > 0) {
    const issues = document.errors.map((error): ConfigIssue => {
      const { line, col } = lines.linePos(error.pos[0]);
      return { path: '', line, column: col, message: `YAML syntax: ${error.message}` };
    });
    return { settings: undefined, issues: issues.sort(byPosition), place };
  }
  const value: unknown = document.toJS({ maxAliasCount: 100 }) ?? {};
  const node = configNode();
  const found: NodeIssue[] = [];
  node.check(value, [], found);
  let settings: ConfigSettings | undefined;
  if (found.length === 0) {
    settings = node.parse(value, { baseDir: options.baseDir ?? process.cwd() });
    found.push(...checkRules(settings));
    if (options.env !== undefined) found.push(...checkEnv(settings, options.env));
  }
  const issues = found.map(place).sort(byPosition);
  return { settings: issues.length === 0 ? settings : undefined, issues, place };
}

/**
 * Check a config text and parse it to settings. Never throws for a bad config: every problem is an
 * issue with its key path, line and column.
 *
 * @example
 * const result = validateConfig('profile: staging\n');
 * // result.ok === false; result.issues[0]: { path: 'profile', line: 1, column: 10,
 * //   message: 'Expected one of `development`, `production`, got `staging`' }
 */
export function validateConfig(text: string, options: ParseConfigOptions = {}): ConfigValidation {
  const { settings, issues } = analyzeConfig(text, options);
  return settings === undefined ? { ok: false, issues } : { ok: true, value: settings };
}

/**
 * Parse a config text to settings; throws {@link ConfigError} listing every problem.
 *
 * @example
 * const settings = parseConfig(readFileSync('hyphae.yaml', 'utf8'), { file: 'hyphae.yaml', baseDir: '.' });
 */
export function parseConfig(text: string, options: ParseConfigOptions = {}): ConfigSettings {
  const result = validateConfig(text, options);
  if (!result.ok) throw new ConfigError(options.file ?? '<inline>', result.issues);
  return result.value;
}
