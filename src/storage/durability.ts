/**
 * Whether a file-backed store outlives the process that opened it: the fact a file driver reports
 * as `capabilities.durable`, so the production profile can refuse what would not survive.
 */
import { tmpdir } from 'node:os';
import { isAbsolute, relative, resolve, sep } from 'node:path';

/** Directories whose files a reboot or a cleaner removes: the OS temp directory and shared memory. */
function transientRoots(): readonly string[] {
  const roots = new Set([resolve(tmpdir()), '/tmp', '/var/tmp', '/dev/shm', '/run/shm']);
  return [...roots];
}

function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * False for a database that lives only as long as the process or the host's temporary files: an
 * empty name, SQLite's `:memory:` (and `file::memory:` URIs), or a path under the OS temp
 * directory or shared memory; true for any other file.
 *
 * @example
 * fileOutlivesProcess('.hyphae/ledger.db'); // true
 * fileOutlivesProcess(join(tmpdir(), 'ledger.db')); // false
 */
export function fileOutlivesProcess(path: string): boolean {
  if (path === '' || path === ':memory:' || /^file::memory:/.test(path) || /[?&]mode=memory\b/.test(path)) {
    return false;
  }
  const absolute = resolve(path);
  return !transientRoots().some((root) => isInside(absolute, root));
}
