import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
// `--import tsx` resolves from the working directory; the CLI tests run in temp folders.
const TSX = new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;

/** What one run of the CLI printed and returned. */
export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * The environment of a child: `base` with `overrides`, where an empty value removes the variable.
 * Node 24 warns on stderr when `NO_COLOR` and `FORCE_COLOR` are both set, even to an empty string.
 */
export function childEnv(base: NodeJS.ProcessEnv, overrides: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env = { ...base, ...overrides };
  for (const [name, value] of Object.entries(env)) if (value === '') delete env[name];
  return env;
}

/** Run `hyphae …` from the sources in `cwd`, without colour unless `env` asks for it. */
export function hyphae(cwd: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): CliResult {
  const result = spawnSync(process.execPath, ['--import', TSX, MAIN, ...args], {
    cwd,
    encoding: 'utf8',
    env: childEnv(process.env, { NO_COLOR: '1', FORCE_COLOR: '', ...env }),
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Run a built `hyphae` (`dist/cli/main.js`) in `cwd`. */
export function hyphaeBuilt(main: string, cwd: string, args: readonly string[]): CliResult {
  const result = spawnSync(process.execPath, [main, ...args], {
    cwd,
    encoding: 'utf8',
    env: childEnv(process.env, { NO_COLOR: '1', FORCE_COLOR: '' }),
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}
