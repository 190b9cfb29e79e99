/**
 * Terminal output for the CLI: colour only on a TTY, and never when `NO_COLOR` is set.
 */

/** Writes lines, with colour where the terminal wants it. */
export interface Output {
  line(text?: string): void;
  pass(text: string): string;
  fail(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
}

/** Whether a stream should get ANSI colour. */
export function wantsColour(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true;
}

/** An {@link Output} over a stream. */
export function createOutput(
  stream: NodeJS.WriteStream = process.stdout,
  env: NodeJS.ProcessEnv = process.env,
): Output {
  const colour = wantsColour(stream, env);
  const paint = (code: number, reset: number) => (text: string) =>
    colour ? `\u001b[${code}m${text}\u001b[${reset}m` : text;
  return {
    line: (text = '') => {
      stream.write(`${text}\n`);
    },
    pass: paint(32, 39),
    fail: paint(31, 39),
    dim: paint(2, 22),
    bold: paint(1, 22),
  };
}
