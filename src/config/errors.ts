/**
 * Errors of the config loader.
 */
import { GuardError, type GuardErrorOptions } from '../errors.js';

/** One problem of a config file: where it is, and what was expected. */
export interface ConfigIssue {
  /** The key path, `tools.send_payment.side_effect_class`; `''` for the file as a whole. */
  readonly path: string;
  /** 1-based line. */
  readonly line: number;
  /** 1-based column. */
  readonly column: number;
  readonly message: string;
}

function describe(file: string, issues: readonly ConfigIssue[]): string {
  const lines = issues.map((issue) => {
    const at = issue.path === '' ? '' : ` \`${issue.path}\`:`;
    return `  ${file}:${issue.line}:${issue.column}${at} ${issue.message}`;
  });
  const count = issues.length === 1 ? '1 problem' : `${issues.length} problems`;
  return `Invalid config \`${file}\` (${count}):\n${lines.join('\n')}`;
}

/**
 * A config file is invalid: `issues` lists every problem with its line, column and key path.
 *
 * @example
 * try { await loadConfig('hyphae.yaml'); } catch (error) {
 *   if (error instanceof ConfigError) logger.error('hyphae.yaml is invalid', { issues: error.issues.map((i) => i.message) });
 * }
 */
export class ConfigError extends GuardError {
  /** The file as named to the loader (`<inline>` for text without a path). */
  readonly file: string;
  readonly issues: readonly ConfigIssue[];

  constructor(
    file: string,
    issues: readonly ConfigIssue[],
    options: GuardErrorOptions & { readonly message?: string } = {},
  ) {
    super('config_invalid', options.message ?? describe(file, issues), options);
    this.file = file;
    this.issues = Object.freeze([...issues]);
  }
}
