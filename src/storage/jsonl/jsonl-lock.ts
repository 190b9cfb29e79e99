/**
 * A lock file beside a JSONL receipt file, held for the length of one append, so several processes
 * on one host can append to one file without forking the chain.
 *
 * The lock is `<file>.lock`, created with `O_EXCL` and holding `pid@host:token`. A lock whose
 * process is gone (same host, pid not running) is broken by renaming it aside first, so of two
 * processes breaking one stale lock only one succeeds:
 *
 *   A: reads stale `41@h` ─► rename(lock → lock.stale.A) ok ─► removes it ─► creates its own lock
 *   B: reads stale `41@h` ─► rename(lock → lock.stale.B) fails (ENOENT) or renames A's fresh lock;
 *      in the second case B finds a content other than `41@h` in its copy and puts it back.
 *
 * On other hosts (a network file system) a holder's liveness cannot be checked: such a lock is waited
 * for and then reported, naming the holder.
 */
import { randomUUID } from 'node:crypto';
import { link, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { ReceiptSinkUnavailableError } from '../../errors.js';

/** An empty or unreadable lock this old is taken to be left by a process that died creating it. */
const UNREADABLE_LOCK_STALE_MS = 5_000;

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const code = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | null)?.code;

async function readLock(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if (code(error) === 'ENOENT') return null;
    throw error;
  }
}

async function isStale(path: string, content: string): Promise<boolean> {
  const match = /^(\d+)@([^:]*):/.exec(content);
  if (match === null) {
    const info = await stat(path).catch(() => null);
    return info !== null && Date.now() - info.mtimeMs > UNREADABLE_LOCK_STALE_MS;
  }
  return match[2] === hostname() && !isRunning(Number(match[1]));
}

/** Move a stale lock aside; if what was moved is not the stale lock we saw, put it back. */
async function breakStale(path: string, seen: string): Promise<void> {
  const aside = `${path}.stale.${randomUUID()}`;
  try {
    await rename(path, aside);
  } catch (error) {
    if (code(error) === 'ENOENT') return;
    throw error;
  }
  const moved = await readLock(aside);
  if (moved !== seen) await link(aside, path).catch(() => undefined);
  await unlink(aside).catch(() => undefined);
}

/** Take the lock of `file`; resolves to its release. */
export async function acquireJsonlLock(file: string, timeoutMs: number): Promise<() => Promise<void>> {
  const path = `${file}.lock`;
  const token = `${process.pid}@${hostname()}:${randomUUID()}`;
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await open(path, 'wx');
      try {
        await handle.writeFile(token, 'utf8');
      } finally {
        await handle.close();
      }
      return async function releaseJsonlLock() {
        // Remove only our own lock: a lock broken as stale and retaken belongs to someone else now.
        if ((await readLock(path).catch(() => null)) === token) await unlink(path).catch(() => undefined);
      };
    } catch (error) {
      if (code(error) !== 'EEXIST') {
        throw new ReceiptSinkUnavailableError(file, `its lock file \`${path}\` could not be created`, { cause: error });
      }
    }
    const holder = await readLock(path);
    if (holder !== null && (await isStale(path, holder))) {
      await breakStale(path, holder);
      continue;
    }
    if (Date.now() - started >= timeoutMs) {
      throw new ReceiptSinkUnavailableError(
        file,
        `its lock \`${path}\` is held by \`${holder?.split(':')[0] ?? 'unknown'}\`; if that process is gone, remove the lock file`,
      );
    }
    await sleep(Math.min(50, 2 + attempt * 2));
  }
}
