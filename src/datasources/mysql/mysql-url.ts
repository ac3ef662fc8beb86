/**
 * A `mysql://` or `mariadb://` datasource URL as mysql2 connection options,
 * with what every connection of Sluice's needs whatever the URL says: one
 * statement per query (no multi-statements), no LOCAL INFILE, utf8mb4.
 */
import type { ConnectionOptions } from 'mysql2';
import { SluiceError } from '../../errors.ts';
import type { MysqlFlavor } from './sql-parser.ts';

const CONNECT_TIMEOUT_MS = 10_000;

export interface MysqlTarget {
  options: ConnectionOptions;
  /** The URL's database: the default schema. */
  database: string | undefined;
  /** What the URL's scheme calls the server, until the server says what it is. */
  scheme: MysqlFlavor;
}

export function mysqlTarget(url: string): MysqlTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new SluiceError('VALIDATION_ERROR', 'A datasource URL is not a URL.');
  }
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || undefined;
  const ssl = parsed.searchParams.get('ssl');
  const options: ConnectionOptions = {
    host: parsed.hostname.replace(/^\[(.*)\]$/, '$1') || '127.0.0.1',
    port: parsed.port === '' ? 3306 : Number(parsed.port),
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    ...(database === undefined ? {} : { database }),
    ...(ssl === 'true' || ssl === 'required' ? { ssl: { rejectUnauthorized: true } } : {}),
    charset: 'utf8mb4_unicode_ci',
    multipleStatements: false,
    flags: ['-LOCAL_FILES', '-MULTI_STATEMENTS'],
    connectTimeout: CONNECT_TIMEOUT_MS,
  };
  return { options, database, scheme: parsed.protocol === 'mariadb:' ? 'mariadb' : 'mysql' };
}

/** What VERSION() says the server is. */
export function flavorOf(version: string): MysqlFlavor {
  return version.toLowerCase().includes('mariadb') ? 'mariadb' : 'mysql';
}
