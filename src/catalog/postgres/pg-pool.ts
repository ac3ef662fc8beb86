/**
 * The catalog's connections to PostgreSQL: a node-postgres pool, and the
 * one way a transaction runs on it.
 *
 * Why node-postgres and not postgres.js: postgres.js 3.4.9 schedules the
 * ROLLBACK that closes a failed `begin()` as a write on its next tick, and
 * when the connection died under the transaction that write meets a socket that is already gone
 * and throws where no caller can catch it (porsager/postgres#1208): the
 * whole server would exit because its catalog's database restarted. Here a
 * lost connection fails the statement that was running, the client is
 * destroyed rather than reused, and the next transaction gets a new one.
 */
import pg from 'pg';
import type { Logger } from '../../logger.ts';
import type { CatalogTx, Param } from '../catalog-db.ts';

export interface PgPoolOptions {
  url: string;
  schema: string;
  maxConnections: number;
  applicationName: string;
  statementTimeoutMs: number;
  log: Logger;
}

const CONNECT_TIMEOUT_MS = 10_000;
const IDLE_TIMEOUT_MS = 30_000;

export function openPool(options: PgPoolOptions): pg.Pool {
  // node-postgres lets the URL's own parameters win over the config's: options the URL names are kept and ours added to them.
  const url = new URL(options.url);
  const own = url.searchParams.get('options');
  url.searchParams.delete('options');
  const pool = new pg.Pool({
    connectionString: url.toString(),
    max: options.maxConnections,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: IDLE_TIMEOUT_MS,
    application_name: options.applicationName,
    statement_timeout: options.statementTimeoutMs,
    // The schema is a checked lower-case identifier: quoting it is all it needs.
    options: [own, `-c search_path="${options.schema}"`].filter((o) => o !== null).join(' '),
  });
  // An idle connection that drops is removed by the pool; without a listener its error would end the process.
  pool.on('error', (error) => options.log.error('An idle connection of the artifact catalog failed; it is dropped, and the next statement opens another.', error));
  return pool;
}

/** The statements are written with `?`; PostgreSQL numbers its parameters. None of them has a `?` inside a literal. */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

export function txOver(runner: pg.Pool | pg.PoolClient): CatalogTx {
  return {
    all: async <T>(text: string, params: Param[] = []) => (await runner.query(numbered(text), params)).rows as T[],
    run: async (text, params = []) => (await runner.query(numbered(text), params)).rowCount ?? 0,
  };
}

/**
 * Runs `fn` between BEGIN and COMMIT on one connection. A connection that
 * failed on the way (its error event, or a ROLLBACK that could not be sent)
 * goes back to the pool as broken, which closes it.
 */
export async function inTransaction<T>(pool: pg.Pool, fn: (tx: CatalogTx) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  // A checked-out client reports a connection lost between statements as an event; unheard, it would end the process.
  const onError = (error: Error): void => {
    broken ??= error;
  };
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const result = await fn(txOver(client));
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackError: Error) => {
      broken ??= rollbackError;
    });
    throw error;
  } finally {
    client.off('error', onError);
    client.release(broken ?? false);
  }
}
