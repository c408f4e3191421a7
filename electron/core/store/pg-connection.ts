// The PostgreSQL side of the store: the pool and what its errors mean. A server
// that cannot be reached, refuses the credentials or lacks rights is said in one line (the CLI's
// exit 1); a server that goes away while serving makes every query fail with DatabaseUnreachable,
// which the HTTP boundary turns into a 503 (storage-errors.ts); the pool reconnects by itself.
import pg from 'pg';

/** node-postgres returns int8 and numeric as strings; every such column here is a count, a time in ms or nano-USD within 2^53. */
const INT8_OID = 20;
const NUMERIC_OID = 1700;
const asNumber = (value: string): number => Number(value);

/** Raised for any query while the server cannot be reached; storage-errors.ts makes it a 503. */
export class DatabaseUnreachable extends Error {
  override readonly name = 'DatabaseUnreachable';
  readonly code = 'MGW_DB_UNREACHABLE';
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ECONNABORTED']);

/** Whether a driver error means the server is gone (rather than a query being wrong). */
export function isConnectionLoss(error: unknown): boolean {
  if (error instanceof DatabaseUnreachable) return true;
  const code = String((error as { code?: unknown } | null)?.code ?? '');
  // 08: connection exceptions; 57P01-03: the server shutting down or starting; 53300: too many connections.
  if (NETWORK_CODES.has(code) || /^08/.test(code) || /^57P0[123]$/.test(code) || code === '53300') return true;
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable/i.test(String((error as Error | null)?.message ?? ''));
}

/** Why opening failed, in one line that points at the fix. */
export function openFailure(url: URL, error: unknown): string {
  const where = `${url.hostname || url.searchParams.get('host')}:${url.port || 5432}`;
  const database = decodeURIComponent(url.pathname.slice(1));
  const user = decodeURIComponent(url.username) || 'the default user';
  const code = String((error as { code?: unknown } | null)?.code ?? '');
  if (code === '28P01' || code === '28000') return `The database at ${where} refused the credentials of ${user}.`;
  if (code === '3D000') return `The database ${JSON.stringify(database)} does not exist on ${where}; create it first (createdb ${database}).`;
  if (code === '42501') return `The database user ${user} lacks the rights the gateway needs on ${JSON.stringify(database)} (it creates its tables there): ${(error as Error).message}.`;
  if (code === 'ECONNREFUSED') return `Cannot reach the database at ${where}: connection refused (is PostgreSQL running there?).`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `Cannot reach the database at ${where}: no such host.`;
  if (isConnectionLoss(error)) return `Cannot reach the database at ${where}: ${(error as Error).message || code}.`;
  return `The database at ${where} refused to open: ${(error as Error).message}.`;
}

export function createPool(url: string): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        oid === INT8_OID || oid === NUMERIC_OID ? asNumber : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  // A client whose server went away emits 'error'; unheard, it would end the process. The pool
  // listens only while a client is idle: one checked out (a transaction between two queries, the
  // server shutting down) needs its own listener. Its next query then fails, and that failure is
  // what the caller sees, as DatabaseUnreachable.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}
