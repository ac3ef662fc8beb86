/**
 * A privileged PostgreSQL connection for tests, benches and scripts: setting
 * up schemas and databases, reading ground truth, watching and ending
 * backends. It speaks node-postgres, the one PostgreSQL client Sluice ships,
 * and reads the URL as the datasource driver does (sessionConfig: settings
 * in the query string become session settings). Behind it is a pool of one
 * by default: the connection opens on first use, and one the server ends (a
 * forced DROP DATABASE, pg_terminate_backend, a restarted server) is
 * replaced by the next query instead of failing the process.
 */
import pg from 'pg';
import { sessionConfig } from '../../src/datasources/postgres/export/pg-connect.ts';

/** A row as node-postgres parses it: int4 as number, int8 and numeric as text, timestamptz as Date. */
export type Row = Record<string, any>;

export interface AdminSql {
  /**
   * The rows of `text`, with `params` bound to $1, $2…. Without params `text`
   * may hold several statements (the simple protocol); the rows are then the
   * last statement's.
   */
  query<T extends Row = Row>(text: string, params?: readonly unknown[]): Promise<T[]>;
  /** A connection of its own, for a session held across statements; release() it. */
  connect(): Promise<pg.PoolClient>;
  /** Runs `work` in one transaction (`BEGIN <mode>`) on a connection of its own: COMMIT if it resolves, ROLLBACK if it throws. */
  begin<T>(work: (tx: pg.PoolClient) => Promise<T>, mode?: string): Promise<T>;
  /** Closes the connections; calling it again is harmless. */
  end(): Promise<void>;
}

export interface AdminSqlOptions {
  /** Connections at once; 1 unless the caller holds one while querying on another. */
  max?: number;
  applicationName?: string;
  searchPath?: string;
}

export function openAdminSql(url: string, options: AdminSqlOptions = {}): AdminSql {
  const config = sessionConfig(url);
  const settings = [config.options, options.searchPath === undefined ? undefined : `-c search_path=${options.searchPath}`].filter(Boolean);
  const pool = new pg.Pool({
    ...config,
    max: options.max ?? 1,
    ...(options.applicationName === undefined ? {} : { application_name: options.applicationName }),
    ...(settings.length > 0 ? { options: settings.join(' ') } : {}),
  });
  // An idle connection ended by the server is not the caller's failure: the pool drops it and opens another when asked.
  pool.on('error', () => undefined);
  // A test may end it early and its afterAll again: the second end waits for the first instead of throwing.
  let ended: Promise<void> | undefined;
  return {
    async query<T extends Row = Row>(text: string, params?: readonly unknown[]): Promise<T[]> {
      const result: pg.QueryResult<T> | pg.QueryResult<T>[] = await pool.query<T>(text, params === undefined ? undefined : [...params]);
      return (Array.isArray(result) ? result.at(-1)?.rows : result.rows) ?? [];
    },
    connect: () => pool.connect(),
    async begin<T>(work: (tx: pg.PoolClient) => Promise<T>, mode?: string): Promise<T> {
      const tx = await pool.connect();
      try {
        await tx.query(mode === undefined ? 'BEGIN' : `BEGIN ${mode}`);
        const result = await work(tx);
        await tx.query('COMMIT');
        return result;
      } catch (error) {
        await tx.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        tx.release();
      }
    },
    end: () => (ended ??= pool.end()),
  };
}
