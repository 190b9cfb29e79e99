/**
 * Command-line options through `node:util` `parseArgs`, with every mistake as a `UsageError`.
 */
import { parseArgs } from 'node:util';
import { UsageError } from '../command.js';

/** One option: a flag (`boolean`) or an option taking a value (`string`). */
export interface OptionSpec {
  readonly type: 'boolean' | 'string';
  readonly short?: string;
  readonly multiple?: boolean;
}

/** The parsed options and positionals. */
export interface ParsedOptions {
  readonly values: Readonly<Record<string, string | boolean | readonly string[] | undefined>>;
  readonly positionals: readonly string[];
}

/**
 * Parse `args` against `spec`; unknown options, missing values and stray flags are usage errors
 * naming the command.
 */
export function parseOptions(
  command: string,
  args: readonly string[],
  spec: Readonly<Record<string, OptionSpec>>,
): ParsedOptions {
  try {
    const { values, positionals } = parseArgs({
      args: [...args],
      options: spec as Record<string, OptionSpec>,
      allowPositionals: true,
      strict: true,
    });
    return { values: values as ParsedOptions['values'], positionals };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const message = error instanceof Error ? error.message : String(error);
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const option = /'([^']+)'/.exec(message)?.[1] ?? message;
      throw new UsageError(`Unknown option \`${option}\` for \`hyphae ${command}\``);
    }
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      const option = /--[\w-]+/.exec(message)?.[0];
      if (option !== undefined) throw new UsageError(`Option \`${option}\` of \`hyphae ${command}\` needs a value`);
    }
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
      throw new UsageError(`\`hyphae ${command}\`: ${message.split('\n')[0]}`);
    }
    throw error;
  }
}

/** The string value of `name`, or undefined. */
export function stringOption(parsed: ParsedOptions, name: string): string | undefined {
  const value = parsed.values[name];
  return typeof value === 'string' ? value : undefined;
}

/** True when the flag `name` was given. */
export function flag(parsed: ParsedOptions, name: string): boolean {
  return parsed.values[name] === true;
}

/** The string values of a `multiple` option. */
export function listOption(parsed: ParsedOptions, name: string): readonly string[] {
  const value = parsed.values[name];
  return Array.isArray(value) ? value : [];
}
