// The --database URL: checked before anything connects (a malformed one is the CLI's usage error),
// and shown without its password. No driver here: the CLI loads this at every start.
import { GatewayError } from '../errors.js';

/** A malformed URL: the CLI's usage error (exit 2). Returns the URL as parsed. */
export function parseDatabaseUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new GatewayError('invalid_request', `--database must be a URL such as postgres://USER:PASS@HOST:5432/DB (got ${JSON.stringify(redactUrl(url).slice(0, 200))}).`, 'database');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new GatewayError('invalid_request', `--database must be a postgres:// URL (got a ${parsed.protocol.replace(/:$/, '')}: URL).`, 'database');
  }
  if (!parsed.hostname && !parsed.searchParams.get('host')) throw new GatewayError('invalid_request', '--database names no host (postgres://USER:PASS@HOST:5432/DB).', 'database');
  if (parsed.pathname.length <= 1) throw new GatewayError('invalid_request', '--database names no database (postgres://USER:PASS@HOST:5432/DB).', 'database');
  return parsed;
}

/** The URL without its password, for messages and logs. */
export function redactUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]*:)[^@/]*@/, '$1***@');
}
