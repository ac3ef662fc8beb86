/**
 * The catalog in SQLite in the data dir: the single-process default. The
 * driver is synchronous, so a transaction is BEGIN IMMEDIATE ... COMMIT on
 * the one connection, and the async callers of this process take turns on
 * it (a queue), or one caller's statements would land inside another's
 * transaction. Other processes on the same file wait on SQLite's own lock.
 */
import { openSqlite, type SqliteDatabase, type SqliteStatement } from '../../runtime/sqlite.ts';
import type { Catalog, CatalogOptions } from '../catalog.ts';
import { catalogOver } from '../catalog-over.ts';
import type { CatalogDb, CatalogTx, Param } from '../catalog-db.ts';
import { migrateSqlite } from './sqlite-migrations.ts';

/** Pages handed back to the disk per maintenance step (4 MiB at SQLite's default page size). */
const VACUUM_PAGES = 1000;
const INCREMENTAL = 2;

/** SQLite keeps times as ISO text, which sorts as time does. */
function bind(params: Param[]): (string | number | null)[] {
  return params.map((p) => (p instanceof Date ? p.toISOString() : p));
}

function sqlitePort(db: SqliteDatabase): CatalogDb {
  const statements = new Map<string, SqliteStatement>();
  const prepared = (sql: string) => {
    let statement = statements.get(sql);
    if (statement === undefined) statements.set(sql, (statement = db.prepare(sql)));
    return statement;
  };
  const tx: CatalogTx = {
    all: async <T>(sql: string, params: Param[] = []) => prepared(sql).all<T>(...bind(params)),
    run: async (sql, params = []) => prepared(sql).run(...bind(params)).changes,
  };
  let queue: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(fn: () => Promise<T>): Promise<T> => {
    const turn = queue.then(fn, fn);
    queue = turn.catch(() => undefined);
    return turn;
  };
  return {
    // BEGIN IMMEDIATE already excludes every other writer, in this process and in any other.
    forUpdate: '',
    transaction: (fn) =>
      inTurn(async () => {
        db.exec('BEGIN IMMEDIATE');
        try {
          const result = await fn(tx);
          db.exec('COMMIT');
          return result;
        } catch (error) {
          try {
            db.exec('ROLLBACK');
          } catch {
            // SQLite rolls back by itself on some errors (a full disk, I/O): the first error says what happened.
          }
          throw error;
        }
      }),
    read: (sql, params = []) => inTurn(() => tx.all(sql, params)),
    maintain: () =>
      inTurn(async () => {
        // The write-ahead log is folded back into the file without waiting for readers, and freed pages go back
        // to the disk a bounded batch at a time. A catalog file made before auto_vacuum was INCREMENTAL is
        // rebuilt once to switch it (the catalog holds metadata only: a rebuild is small, and runs after start).
        db.exec('PRAGMA wal_checkpoint(PASSIVE)');
        if (db.prepare('PRAGMA auto_vacuum').all<{ auto_vacuum: number }>()[0]?.auto_vacuum !== INCREMENTAL) {
          db.exec('PRAGMA auto_vacuum = INCREMENTAL');
          db.exec('VACUUM');
        }
        db.exec(`PRAGMA incremental_vacuum(${VACUUM_PAGES})`);
      }),
    close: () => inTurn(async () => db.close()),
  };
}

export interface SqliteCatalogOptions extends CatalogOptions {
  /** The catalog file (the local store's `catalog.db` in the data dir). */
  file: string;
}

export function openSqliteCatalog(options: SqliteCatalogOptions): Catalog {
  const db = openSqlite(options.file);
  // A new file takes incremental vacuum before its first table (the rebuild of an empty file costs nothing:
  // WAL mode has already written its header, so the setting needs one); older files switch in maintain().
  if (db.prepare('SELECT count(*) AS n FROM sqlite_master').all<{ n: number }>()[0]?.n === 0) {
    db.exec('PRAGMA auto_vacuum = INCREMENTAL');
    db.exec('VACUUM');
  }
  migrateSqlite(db, (options.now ?? (() => new Date()))());
  return catalogOver(sqlitePort(db), options);
}
