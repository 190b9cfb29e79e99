/**
 * Loading a driver's optional peer dependency, which the driver imports only when it needs it.
 */
import { GuardError } from '../errors.js';

/**
 * The module `importModule` resolves with, or a `missing_peer_dependency` error saying that `needer`
 * needs `packageName` (for `purpose`, when given) and how to install it.
 */
export async function importPeerDependency<T>(
  importModule: () => Promise<T>,
  packageName: string,
  needer: string,
  purpose?: string,
): Promise<T> {
  try {
    return await importModule();
  } catch (cause) {
    const missing = (cause as { code?: unknown } | null)?.code === 'ERR_MODULE_NOT_FOUND';
    const problem = missing ? 'is not installed' : 'could not be loaded';
    throw new GuardError(
      'missing_peer_dependency',
      `${needer} needs the peer dependency \`${packageName}\`${purpose === undefined ? '' : ` ${purpose}`}, which ${problem}: install it with \`npm install ${packageName}\``,
      { cause },
    );
  }
}
