/**
 * The catalog in PostgreSQL, shared by every replica, in its own schema
 * (`sluice` unless told otherwise) so it can live in a database that holds
 * other things. Opening it migrates the schema (once, whoever comes first)
 * and nothing more. Rows are locked with FOR UPDATE in the one order
 * catalog-usage.ts sets, under READ COMMITTED: each statement sees what
 * committed before it, which is what the quota and repeat checks need after
 * their lock, and a deadlock or serialization failure, should one happen,
 * reruns the whole transaction. Every failure reaches callers as a
 * SluiceError: an unreachable database as STORAGE_UNAVAILABLE.
 */
import postgres, { type Sql } from 'postgres';
import { SluiceError } from '../../errors.ts';
import type { Catalog, CatalogOptions } from './catalog.ts';
import { catalogOver } from './catalog-over.ts';
import type { CatalogPort, CatalogTx, Param } from './catalog-port.ts';
import { catalogError, isRetryable } from './pg-errors.ts';
import { migratePg, quoteSchema } from './pg-migrations.ts';

export interface PgCatalogOptions extends CatalogOptions {
  /** `SLUICE_CATALOG_URL`: never logged, never part of an error. */
  url: string;
  schema?: string;
  maxConnections?: number;
  /** Names this process's connections in pg_stat_activity. */
  applicationName?: string;
  /** A statement waiting longer than this (a lock held elsewhere) fails as STORAGE_UNAVAILABLE instead of hanging a request. */
  statementTimeoutMs?: number;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
const ATTEMPTS = 5;

/** The statements are written with `?`; PostgreSQL numbers its parameters. None of them has a `?` inside a literal. */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

function txOver(sql: Pick<Sql, 'unsafe'>): CatalogTx {
  return {
    all: async <T>(text: string, params: Param[] = []) => [...(await sql.unsafe(numbered(text), params as never[]))] as T[],
    run: async (text, params = []) => (await sql.unsafe(numbered(text), params as never[])).count,
  };
}

async function guarded<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw catalogError(error);
  }
}

function pgPort(sql: Sql): CatalogPort {
  return {
    forUpdate: ' FOR UPDATE',
    transaction: <T>(fn: (tx: CatalogTx) => Promise<T>) =>
      guarded(async () => {
        for (let attempt = 1; ; attempt++) {
          try {
            return (await sql.begin((tx) => fn(txOver(tx)))) as T;
          } catch (error) {
            if (!isRetryable(error) || attempt === ATTEMPTS) throw error;
          }
        }
      }),
    read: (text, params) => guarded(() => txOver(sql).all(text, params)),
    // PostgreSQL's autovacuum keeps the tables; nothing to do here.
    maintain: async () => undefined,
    close: () => guarded(() => sql.end({ timeout: 5 })),
  };
}

export async function openPgCatalog(options: PgCatalogOptions): Promise<Catalog> {
  const schema = options.schema ?? 'sluice';
  if (!SCHEMA_NAME.test(schema)) throw new SluiceError('VALIDATION_ERROR', `The catalog schema "${schema}" must be a lower-case SQL identifier.`);
  const sql = postgres(options.url, {
    max: options.maxConnections ?? 4,
    connect_timeout: 10,
    idle_timeout: 30,
    fetch_types: false,
    onnotice: () => undefined,
    connection: {
      application_name: options.applicationName ?? 'sluice-catalog',
      search_path: quoteSchema(schema),
      statement_timeout: options.statementTimeoutMs ?? 30_000,
    },
  });
  try {
    await guarded(() => migratePg(sql, schema));
  } catch (error) {
    await sql.end({ timeout: 0 }).catch(() => undefined);
    throw error;
  }
  return catalogOver(pgPort(sql), options);
}
