// SQLite, PostgreSQL connection and file system failures that mean the data dir cannot take writes (read-only, full,
// I/O errors, permissions, or a lock held past busy_timeout) are the gateway's storage being
// unavailable: 503 with a clear message, never a 500. Transactions roll back, so nothing is
// half-written.
import { GatewayError } from '../errors.js';

const REASONS: [RegExp, string][] = [
  [/^SQLITE_READONLY/, 'the data directory is read-only'],
  [/^SQLITE_FULL/, 'the disk holding the data directory is full'],
  [/^SQLITE_(BUSY|LOCKED)/, 'the database is locked by another process'],
  [/^SQLITE_(IOERR|CANTOPEN|CORRUPT|NOTADB|PROTOCOL)/, 'the database file cannot be read or written'],
  // Team mode: PostgreSQL away (pg-dialect.ts raises this for every connection loss).
  [/^MGW_DB_UNREACHABLE$/, 'the database server cannot be reached; the gateway reconnects when it is back'],
  // PostgreSQL's SQLSTATEs for a server that is there but cannot take the work.
  [/^25006$/, 'the database server is read-only (a standby, or set so)'],
  [/^53100$/, 'the disk of the database server is full'],
  [/^53(200|400)$/, 'the database server is out of memory or at a configured limit'],
  [/^57014$/, 'a database statement was cancelled (a statement timeout)'],
  [/^(40001|40P01|55P03)$/, 'the database was busy with a conflicting change; retry'],
  [/^42501$/, 'the database user lacks the rights the gateway needs'],
  [/^(58\w{3}|XX00[12])$/, 'the database server reported an I/O error or corrupted data'],
];

/** File system errors of the data dir (reference uploads, outputs, the gallery, the dir itself). */
const FILE_REASONS: Record<string, string> = {
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
  EROFS: 'the data directory is read-only',
  EACCES: 'the data directory cannot be written or read (permissions)',
  EPERM: 'the data directory cannot be written or read (permissions)',
  EIO: 'the disk reported an I/O error',
  ENOTDIR: 'a path inside the data directory is not a directory',
  EISDIR: 'a file inside the data directory is a directory',
};

/** The 503 for a storage failure, or null when the error is something else. */
export function storageError(error: unknown): GatewayError | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') {
    for (const [pattern, reason] of REASONS) {
      if (pattern.test(code)) return new GatewayError('storage_unavailable', `The gateway's storage is unavailable: ${reason}.`);
    }
  }
  if (typeof code === 'string' && FILE_REASONS[code]) {
    return new GatewayError('storage_unavailable', `The gateway's storage is unavailable: ${FILE_REASONS[code]}.`);
  }
  return null;
}
