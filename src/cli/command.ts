/**
 * The shape of one `hyphae` command.
 */
import type { Output } from './output.js';

/** Exit codes of every command: 0 ok, 1 a check failed, 2 usage. */
export const ExitCode = { ok: 0, failed: 1, usage: 2 } as const;
/** Exit codes of every command. */
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** What a command gets to run with. */
export interface CommandContext {
  readonly out: Output;
  /** Standard error, for usage and failure messages. */
  readonly err: Output;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
}

/** One subcommand of `hyphae`. */
export interface Command {
  readonly name: string;
  /** One line for the command list. */
  readonly summary: string;
  /** Full help text (usage, options, exit codes). */
  readonly help: string;
  run(args: readonly string[], ctx: CommandContext): Promise<number>;
}

/** Thrown by argument parsing: printed with the command's help, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
