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
import type pg from 'pg';
import { SluiceError } from '../../errors.ts';
import { quietLogger, type Logger } from '../../logger.ts';
import type { Catalog, CatalogOptions } from '../catalog.ts';
import { catalogOver } from '../catalog-over.ts';
import type { CatalogDb, CatalogTx } from '../catalog-db.ts';
import { catalogError, isRetryable } from './pg-errors.ts';
import { migratePg } from './pg-migrations.ts';
import { inTransaction, openPool, txOver } from './pg-pool.ts';

export interface PgCatalogOptions extends CatalogOptions {
  /** `SLUICE_CATALOG_URL`: never logged, never part of an error. */
  url: string;
  schema?: string;
  maxConnections?: number;
  /** Names this process's connections in pg_stat_activity. */
  applicationName?: string;
  /** A statement waiting longer than this (a lock held elsewhere) fails as STORAGE_UNAVAILABLE instead of hanging a request. */
  statementTimeoutMs?: number;
  /** Hears connections that fail while idle (the database restarted, a proxy cut them). */
  log?: Logger;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
const ATTEMPTS = 5;

async function guarded<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw catalogError(error);
  }
}

function pgPort(pool: pg.Pool): CatalogDb {
  return {
    forUpdate: ' FOR UPDATE',
    transaction: <T>(fn: (tx: CatalogTx) => Promise<T>) =>
      guarded(async () => {
        for (let attempt = 1; ; attempt++) {
          try {
            return await inTransaction(pool, fn);
          } catch (error) {
            if (!isRetryable(error) || attempt === ATTEMPTS) throw error;
          }
        }
      }),
    read: (text, params) => guarded(() => txOver(pool).all(text, params)),
    // PostgreSQL's autovacuum keeps the tables; nothing to do here.
    maintain: async () => undefined,
    close: () => guarded(() => pool.end()),
  };
}

export async function openPgCatalog(options: PgCatalogOptions): Promise<Catalog> {
  const schema = options.schema ?? 'sluice';
  if (!SCHEMA_NAME.test(schema)) throw new SluiceError('VALIDATION_ERROR', `The catalog schema "${schema}" must be a lower-case SQL identifier.`);
  const pool = openPool({
    url: options.url,
    schema,
    maxConnections: options.maxConnections ?? 4,
    applicationName: options.applicationName ?? 'sluice-catalog',
    statementTimeoutMs: options.statementTimeoutMs ?? 30_000,
    log: options.log ?? quietLogger,
  });
  try {
    await guarded(() => inTransaction(pool, (tx) => migratePg(tx, schema)));
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
  return catalogOver(pgPort(pool), options);
}
