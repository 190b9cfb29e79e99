/**
 * Translation of SQLite failures into the ledger's storage errors.
 */
import { GuardError, LedgerStorageCorruptError, LedgerStorageUnavailableError } from '../../errors.js';
import { isClosedConnectionError, sqliteErrorCode } from './sqlite-error-code.js';

/**
 * Map an error thrown while talking to SQLite (either driver).
 *
 * A file that is not a database or that SQLite reports corrupt fails closed as corrupt; every other
 * SQLite failure (busy past the timeout, I/O, a full disk, a read-only file, a closed connection)
 * is unavailability. Our own errors and programming errors (a bad cursor) pass through unchanged.
 */
export function mapSqliteError(error: unknown, operation: string, location: string): unknown {
  if (error instanceof GuardError) return error;
  if (isClosedConnectionError(error)) return new LedgerStorageUnavailableError(operation, { cause: error });
  const code = sqliteErrorCode(error);
  if (code === undefined) return error;
  if (code === 'SQLITE_NOTADB') {
    return new LedgerStorageCorruptError(location, 'the file is not a SQLite database', { cause: error });
  }
  if (code.startsWith('SQLITE_CORRUPT')) {
    return new LedgerStorageCorruptError(location, `SQLite reports corruption (\`${code}\`)`, { cause: error });
  }
  return new LedgerStorageUnavailableError(operation, { cause: error });
}
