/**
 * The SQLite result code of an error from either driver, by name: better-sqlite3 puts the name in
 * `code` (`SQLITE_BUSY`); node:sqlite puts `ERR_SQLITE_ERROR` there and the number in `errcode`.
 */

const PRIMARY = [
  'OK',
  'ERROR',
  'INTERNAL',
  'PERM',
  'ABORT',
  'BUSY',
  'LOCKED',
  'NOMEM',
  'READONLY',
  'INTERRUPT',
  'IOERR',
  'CORRUPT',
  'NOTFOUND',
  'FULL',
  'CANTOPEN',
  'PROTOCOL',
  'EMPTY',
  'SCHEMA',
  'TOOBIG',
  'CONSTRAINT',
  'MISMATCH',
  'MISUSE',
  'NOLFS',
  'AUTH',
  'FORMAT',
  'RANGE',
  'NOTADB',
] as const;

/** The extended codes the stores tell apart; others are named by their primary code. */
const EXTENDED: ReadonlyMap<number, string> = new Map([
  [261, 'BUSY_RECOVERY'],
  [517, 'BUSY_SNAPSHOT'],
  [779, 'CORRUPT_INDEX'],
  [1555, 'CONSTRAINT_PRIMARYKEY'],
  [2067, 'CONSTRAINT_UNIQUE'],
]);

/** `SQLITE_…` for a SQLite error of either driver, else undefined (our errors, programming errors). */
export function sqliteErrorCode(error: unknown): string | undefined {
  const { code, errcode } = (error ?? {}) as { code?: unknown; errcode?: unknown };
  if (typeof code === 'string' && code.startsWith('SQLITE_')) return code;
  if (code !== 'ERR_SQLITE_ERROR' || typeof errcode !== 'number') return undefined;
  const name = EXTENDED.get(errcode) ?? PRIMARY[errcode & 0xff] ?? 'ERROR';
  return `SQLITE_${name}`;
}

/** True when node:sqlite refused a statement because the connection is closed. */
export function isClosedConnectionError(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === 'ERR_INVALID_STATE' && typeof message === 'string' && message.includes('not open');
}
