// Kysely's PostgreSQL dialect over our pool, with two changes: a query that fails because the
// server went away raises DatabaseUnreachable (one meaning for every code path), and a NUL in a
// text value (which SQLite stores and PostgreSQL's text refuses) is stored as U+FFFD, so that a
// prompt or a model name carrying one is not a 500, nor a log batch that can never be written.
import { PostgresDialect, type CompiledQuery, type DatabaseConnection, type Dialect, type Driver, type QueryResult, type TransactionSettings } from 'kysely';
import type pg from 'pg';
import { DatabaseUnreachable, isConnectionLoss } from './pg-connection.js';

export function postgresDialect(pool: pg.Pool): Dialect {
  const base = new PostgresDialect({ pool });
  return {
    createAdapter: () => base.createAdapter(),
    createQueryCompiler: () => base.createQueryCompiler(),
    createIntrospector: (db) => base.createIntrospector(db),
    createDriver: () => new UnreachableMappingDriver(base.createDriver()),
  };
}

const withoutNul = (value: unknown): unknown => (typeof value === 'string' && value.includes('\u0000') ? value.replaceAll('\u0000', '\ufffd') : value);

function storable(query: CompiledQuery): CompiledQuery {
  return query.parameters.some((value) => typeof value === 'string' && value.includes('\u0000')) ? { ...query, parameters: query.parameters.map(withoutNul) } : query;
}

const unreachable = (error: unknown): unknown =>
  isConnectionLoss(error) && !(error instanceof DatabaseUnreachable) ? Object.assign(new DatabaseUnreachable('the database server cannot be reached'), { cause: error }) : error;

async function mapped<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw unreachable(error);
  }
}

class UnreachableMappingDriver implements Driver {
  /** The driver's own connection behind each wrapper: it releases only its own objects. */
  private readonly wrapped = new WeakMap<DatabaseConnection, DatabaseConnection>();

  constructor(private readonly inner: Driver) {}
  init = () => this.inner.init();
  destroy = () => this.inner.destroy();
  releaseConnection = (connection: DatabaseConnection) => this.inner.releaseConnection(this.wrapped.get(connection) ?? connection);
  beginTransaction = (connection: DatabaseConnection, settings: TransactionSettings) => mapped(() => this.inner.beginTransaction(connection, settings));
  commitTransaction = (connection: DatabaseConnection) => mapped(() => this.inner.commitTransaction(connection));
  rollbackTransaction = (connection: DatabaseConnection) => mapped(() => this.inner.rollbackTransaction(connection));

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await mapped(() => this.inner.acquireConnection());
    const wrapper: DatabaseConnection = {
      executeQuery: <R>(query: CompiledQuery): Promise<QueryResult<R>> => mapped(() => connection.executeQuery<R>(storable(query))),
      streamQuery: <R>(query: CompiledQuery, chunkSize?: number) => connection.streamQuery<R>(query, chunkSize),
    };
    this.wrapped.set(wrapper, connection);
    return wrapper;
  }
}
