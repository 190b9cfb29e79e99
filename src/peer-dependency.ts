/**
 * Loading an optional peer dependency, which a driver, the CLI or a model adapter imports only when
 * it needs it: the one loader, and its one error.
 */
import { MissingPeerDependencyError } from './errors.js';

/** True when `cause` says a module could not be found (rather than failing while it loaded). */
function notFound(cause: unknown): boolean {
  return (cause as { code?: unknown } | null)?.code === 'ERR_MODULE_NOT_FOUND';
}

/**
 * The module `importModule` resolves with, or a {@link MissingPeerDependencyError} saying that
 * `needer` needs `packages` (for `purpose`, when given) and the command that installs them.
 */
export async function importPeerDependency<T>(
  importModule: () => Promise<T>,
  packages: string | readonly [string, ...string[]],
  needer: string,
  purpose?: string,
): Promise<T> {
  try {
    return await importModule();
  } catch (cause) {
    const names: readonly [string, ...string[]] = typeof packages === 'string' ? [packages] : packages;
    const listed = names.map((name) => `\`${name}\``).join(' and ');
    const noun = names.length === 1 ? 'the peer dependency' : 'the peer dependencies';
    const problem = notFound(cause)
      ? names.length === 1
        ? 'is not installed'
        : 'are not installed'
      : 'could not be loaded';
    throw new MissingPeerDependencyError(
      names,
      `${needer} needs ${noun} ${listed}${purpose === undefined ? '' : ` ${purpose}`}, which ${problem}: install ${names.length === 1 ? 'it' : 'them'} with \`npm install ${names.join(' ')}\``,
      { cause },
    );
  }
}
