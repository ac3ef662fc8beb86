/**
 * PostgreSQL's driver on the API thread: a small node-postgres pool for
 * schema lookups and health, libpg-query for the statement check, and the
 * dialect. Exports run in the query workers (export/pg-export-driver.ts).
 * The embedded database is PostgreSQL too, with one real session: it
 * declares no cancel (PGlite runs a statement to its end) and no
 * concurrency.
 */
import pg from 'pg';
import type { Logger } from '../../logger.ts';
import type { DatasourceDriver, DriverCapabilities } from '../driver.ts';
import { describeTable, listTables } from './introspection.ts';
import { pgDialect } from './pg-dialect.ts';
import { toPgSluiceError } from './pg-errors.ts';
import { sessionConfig } from './export/pg-connect.ts';
import { checkReadOnly, classifySql } from './sql-safety.ts';
import { ownLimit } from './statement-limit.ts';

export interface PostgresSpec {
  id: string;
  url: string;
  embedded: boolean;
}

export const PG_CAPABILITIES: DriverCapabilities = { cancel: true, engineReadOnly: true, concurrentStatements: true };
const EMBEDDED_CAPABILITIES: DriverCapabilities = { cancel: false, engineReadOnly: true, concurrentStatements: false };

/** Schema lookups are small catalog queries: two connections serve them; the embedded database has one session. */
const SCHEMA_CONNECTIONS = 2;
const IDLE_MS = 30_000;

export function openPostgresDriver(spec: PostgresSpec, log: Logger): DatasourceDriver {
  const pool = new pg.Pool({ ...sessionConfig(spec.url), application_name: 'sluice-schema', max: spec.embedded ? 1 : SCHEMA_CONNECTIONS, idleTimeoutMillis: IDLE_MS });
  // An idle connection that drops is removed by the pool; without a listener its error would end the process.
  pool.on('error', (error) => log.error(`An idle schema connection of datasource "${spec.id}" failed; the next lookup opens another.`, error));
  const mapped = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (error) {
      throw toPgSluiceError(error);
    }
  };
  return {
    kind: 'postgres',
    capabilities: spec.embedded ? EMBEDDED_CAPABILITIES : PG_CAPABILITIES,
    dialect: pgDialect,
    checkStatement: checkReadOnly,
    classify: classifySql,
    ownLimit,
    listTables: (options) => mapped(() => listTables(pool, options)),
    describeTable: (schema, name) => mapped(() => describeTable(pool, schema, name)),
    health: () => mapped(async () => void (await pool.query('SELECT 1'))),
    async startupWarnings() {
      // The embedded database has one user, a superuser by construction: nothing to configure there.
      if (spec.embedded) return [];
      try {
        const { rows } = await pool.query<{ rolsuper: boolean }>('SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user');
        if (rows[0]?.rolsuper !== true) return [];
        return [`Warning: datasource "${spec.id}" connects as a superuser. Sluice runs every query READ ONLY and refuses functions that reach outside the database, but a role with only SELECT rights is the safer boundary.`];
      } catch (error) {
        return [`Warning: datasource "${spec.id}" is not reachable yet (${(error as Error).message}).`];
      }
    },
    close: () => pool.end(),
  };
}
