/**
 * MySQL's and MariaDB's driver on the API thread: a small mysql2 pool for
 * schema lookups, health and learning which engine the server is, the
 * statement check with node-sql-parser in that engine's grammar, and the
 * dialect. Exports run in the query workers (export/mysql-export-driver.ts).
 * Until the server has been reached the dialect is the one the URL's scheme
 * names; from then on the one the server reports (VERSION() says MariaDB, or
 * it is MySQL), whichever scheme the URL used.
 */
import { createPool, type Pool } from 'mysql2/promise';
import type { Logger } from '../../logger.ts';
import type { DatasourceDriver, DriverCapabilities, SqlDialect } from '../driver.ts';
import { describeTable, listTables } from './introspection.ts';
import { mysqlDialect } from './mysql-dialect.ts';
import { toMysqlSluiceError } from './mysql-errors.ts';
import { flavorOf, mysqlTarget } from './mysql-url.ts';
import { privilegesBeyondSelect } from './privileges.ts';
import { checkReadOnly, classifySql, ownLimit } from './sql-safety.ts';
import type { MysqlFlavor } from './sql-parser.ts';

export interface MysqlSpec {
  id: string;
  url: string;
}

export const MYSQL_CAPABILITIES: DriverCapabilities = { cancel: true, engineReadOnly: true, concurrentStatements: true };

/** Schema lookups are small catalog queries: two connections serve them. */
const SCHEMA_CONNECTIONS = 2;
const IDLE_MS = 30_000;

export function openMysqlDriver(spec: MysqlSpec, log: Logger): DatasourceDriver {
  const target = mysqlTarget(spec.url);
  const pool: Pool = createPool({ ...target.options, connectionLimit: SCHEMA_CONNECTIONS, maxIdle: 0, idleTimeout: IDLE_MS });
  // A pooled connection that drops is replaced by the pool; without a listener its error would end the process.
  pool.pool.on('connection', (connection) => connection.on('error', (error) => log.error(`A schema connection of datasource "${spec.id}" failed; the next lookup opens another.`, error)));
  let flavor: MysqlFlavor = target.scheme;
  let learned: Promise<MysqlFlavor> | null = null;
  const dialects = new Map<MysqlFlavor, SqlDialect>();
  const mapped = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (error) {
      throw toMysqlSluiceError(error);
    }
  };
  /** Which engine the server is, asked once (again after a failure). */
  const serverFlavor = (): Promise<MysqlFlavor> => {
    learned ??= mapped(async () => {
      const [rows] = await pool.query('SELECT VERSION() AS version');
      flavor = flavorOf(String((rows as { version?: unknown }[])[0]?.version ?? ''));
      return flavor;
    }).catch((error: unknown) => {
      learned = null;
      throw error;
    });
    return learned;
  };
  return {
    kind: 'mysql',
    capabilities: MYSQL_CAPABILITIES,
    get dialect() {
      let dialect = dialects.get(flavor);
      if (dialect === undefined) dialects.set(flavor, (dialect = mysqlDialect(flavor, target.database)));
      return dialect;
    },
    checkStatement: async (sql) => checkReadOnly(sql, await serverFlavor()),
    classify: async (sql) => classifySql(sql, flavor),
    ownLimit: async (sql) => ownLimit(sql, flavor),
    listTables: (options) => mapped(() => listTables(pool, options)),
    describeTable: (schema, name) => mapped(() => describeTable(pool, schema, name)),
    health: () => mapped(async () => void (await serverFlavor(), await pool.query('SELECT 1'))),
    // Start-up also learns which server this is, so the datasource listing says it from the first request.
    startupWarnings: async () => {
      await serverFlavor().catch(() => undefined);
      return startupWarnings(spec.id, pool);
    },
    close: () => pool.end(),
  };
}

async function startupWarnings(id: string, pool: Pool): Promise<string[]> {
  try {
    const [rows] = await pool.query({ sql: 'SHOW GRANTS', rowsAsArray: true });
    const extra = privilegesBeyondSelect((rows as unknown[][]).map((row) => String(row[0])));
    if (extra.length === 0) return [];
    return [
      `Warning: datasource "${id}" connects as a user with privileges beyond reading (${extra.join(', ')}). Sluice runs every query READ ONLY and refuses statements that write files, lock or lift the read-only mode, but a user with only SELECT is the safer boundary.`,
    ];
  } catch (error) {
    return [`Warning: datasource "${id}" is not reachable yet (${toMysqlSluiceError(error).message}).`];
  }
}
