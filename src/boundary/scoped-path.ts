/**
 * Scoped paths: is a path, once every symlink is resolved, inside an allowed root?
 *
 * Async on purpose: resolving symlinks is file-system I/O (one `realpath` per call, more for a
 * missing leaf), and on a network or FUSE file system it can block for long; a tool call is async
 * anyway, so the event loop keeps running.
 *
 * Semantics (POSIX):
 * - The root is resolved with `realpath` too, so a root that is itself a symlink works.
 * - A relative candidate is resolved against the root; `..` is left to the operating system
 *   (`realpath` of the raw string), so `link/..` means what the kernel means by it.
 * - A missing leaf (a file about to be written) is resolved through its nearest existing parent;
 *   a dangling symlink on the way is followed (at most 40 hops, as the kernel does).
 * - The comparison is on path-segment boundaries: `/workspace_evil` is not inside `/workspace`.
 * - Anything else fails closed: a NUL byte, a symlink loop (`ELOOP`), `..` after a missing
 *   directory, a permission error, a root that does not exist.
 *
 * The check is made when the call is made; swapping a symlink between the check and the tool's
 * own `open` is not prevented (that needs `openat`-style APIs Node does not offer). `bounded`
 * narrows the window by handing the tool the resolved path rather than the model's string.
 */
import { lstat, readlink, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { stringArgument } from '../invalid-argument.js';

/** Why a path was refused. */
export type ScopedPathRefusal =
  | 'invalid_path'
  | 'nul_byte'
  | 'root_unavailable'
  | 'outside_root'
  | 'symlink_loop'
  | 'unresolvable';

/** The outcome of {@link resolveScopedPath}. */
export type ScopedPathResult =
  | { readonly ok: true; readonly path: string; readonly root: string }
  | { readonly ok: false; readonly reason: ScopedPathRefusal; readonly message: string; readonly root: string };

const MAX_SYMLINK_HOPS = 40;

type Resolved =
  | { readonly ok: true; readonly path: string }
  | { readonly ok: false; readonly reason: ScopedPathRefusal; readonly detail: string };

function errnoOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'unknown error';
}

function refusedBy(error: unknown): Resolved {
  const code = errnoOf(error);
  if (code === 'ELOOP') return { ok: false, reason: 'symlink_loop', detail: 'it goes through a symlink loop' };
  return { ok: false, reason: 'unresolvable', detail: `it cannot be resolved (${code})` };
}

/** `realpath`, extended to a path whose last segments do not exist yet. */
async function realpathAllowMissing(raw: string): Promise<Resolved> {
  const tail: string[] = [];
  let current = raw;
  let hops = 0;
  for (;;) {
    try {
      const real = await realpath(current);
      return { ok: true, path: tail.length === 0 ? real : join(real, ...tail.reverse()) };
    } catch (error) {
      if (errnoOf(error) !== 'ENOENT') return refusedBy(error);
    }
    // `current` does not resolve. A dangling symlink is followed; a plain missing entry is peeled off.
    let isLink = false;
    try {
      isLink = (await lstat(current)).isSymbolicLink();
    } catch (error) {
      if (errnoOf(error) !== 'ENOENT') return refusedBy(error);
    }
    if (isLink) {
      hops += 1;
      if (hops > MAX_SYMLINK_HOPS) return { ok: false, reason: 'symlink_loop', detail: 'it follows too many symlinks' };
      try {
        const target = await readlink(current);
        current = isAbsolute(target) ? target : `${await realpath(dirname(current))}${sep}${target}`;
      } catch (error) {
        return refusedBy(error);
      }
      continue;
    }
    const parent = dirname(current);
    const base = basename(current);
    if (parent === current) return { ok: false, reason: 'unresolvable', detail: 'no part of it exists' };
    if (base === '..') return { ok: false, reason: 'unresolvable', detail: 'it uses `..` after a missing directory' };
    if (base !== '.' && base !== '') tail.push(base);
    current = parent;
  }
}

/**
 * True when `child` is `parent` or below it, compared on path-segment boundaries. Both must be
 * absolute and already resolved; no I/O.
 *
 * @example
 * isSubpath('/workspace', '/workspace/src/a.ts'); // true
 * isSubpath('/workspace', '/workspace_evil/x');   // false
 */
export function isSubpath(parent: string, child: string): boolean {
  stringArgument('isSubpath', 'parent', parent);
  stringArgument('isSubpath', 'child', child);
  if (child === parent) return true;
  return child.startsWith(parent.endsWith(sep) ? parent : `${parent}${sep}`);
}

/**
 * Resolve `candidate` (absolute, or relative to `root`) with every symlink followed, and accept it
 * only when it stays inside `root`. Never throws: any doubt is a refusal.
 *
 * @example
 * const result = await resolveScopedPath('/workspace', 'src/../../etc/passwd');
 * // { ok: false, reason: 'outside_root', message: 'Path `src/../../etc/passwd` is outside `/workspace`', … }
 */
export async function resolveScopedPath(root: string, candidate: unknown): Promise<ScopedPathResult> {
  const refuse = (reason: ScopedPathRefusal, message: string): ScopedPathResult => ({
    ok: false,
    reason,
    message,
    root,
  });
  if (typeof candidate !== 'string' || candidate === '') {
    return refuse('invalid_path', 'Path must be a non-empty string');
  }
  if (candidate.includes('\0') || root.includes('\0')) return refuse('nul_byte', 'Path contains a NUL byte');
  let realRoot: string;
  try {
    realRoot = await realpath(resolve(root));
  } catch (error) {
    return refuse('root_unavailable', `Allowed root \`${root}\` cannot be resolved (${errnoOf(error)})`);
  }
  const raw = isAbsolute(candidate) ? candidate : `${realRoot}${sep}${candidate}`;
  const resolved = await realpathAllowMissing(raw);
  if (!resolved.ok) return refuse(resolved.reason, `Path \`${candidate}\` is refused: ${resolved.detail}`);
  if (!isSubpath(realRoot, resolved.path))
    return refuse('outside_root', `Path \`${candidate}\` is outside \`${root}\``);
  return { ok: true, path: resolved.path, root: realRoot };
}

/**
 * True when `candidate` resolves (symlinks followed) to a location inside `root`.
 *
 * @example
 * await isPathInside('/workspace', '/workspace/notes/new-file.md'); // true, even if the file does not exist yet
 */
export async function isPathInside(root: string, candidate: unknown): Promise<boolean> {
  return (await resolveScopedPath(root, candidate)).ok;
}
