/**
 * Catalog reads on the API thread, on a read-only connection opened for
 * each call (a file replaced on disk is seen at once). They read only
 * SQLite's schema table and table-valued pragmas, a few pages, so they run
 * here rather than in a statement process. What could block the event loop
 * is a lock a writer holds: SQLite's busy timeout would wait synchronously,
 * so it is zero here, and a busy file is retried on timers instead, for a
 * bounded time, before it answers DATASOURCE_UNAVAILABLE.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { openReadOnly } from './engine/open-connection.ts';
import type { SqliteConnection } from './engine/sqlite-connection.ts';
import { fromSqliteFailure, sqliteFailureOf, toSqliteSluiceError, unavailable } from './sqlite-errors.ts';

const BUSY_RETRY_MS = 50;
const BUSY_GIVE_UP_MS = 2_000;

const isBusy = (error: unknown) => ['SQLITE_BUSY', 'SQLITE_LOCKED'].includes(sqliteFailureOf(error)?.code ?? '');

async function open(file: string): Promise<SqliteConnection> {
  try {
    return await openReadOnly(file, { busyTimeoutMs: 0 });
  } catch (error) {
    // SQLite's failure to open says why; any other (a missing directory) means the same to a caller.
    const failure = sqliteFailureOf(error);
    throw failure === undefined ? unavailable() : fromSqliteFailure(failure);
  }
}

/** Runs `read` on a fresh read-only connection to `file`; SQLite's errors as contract errors. */
export async function readCatalog<T>(file: string, read: (connection: SqliteConnection) => T): Promise<T> {
  const giveUpAt = Date.now() + BUSY_GIVE_UP_MS;
  for (;;) {
    const connection = await open(file);
    try {
      return read(connection);
    } catch (error) {
      if (!isBusy(error) || Date.now() >= giveUpAt) throw toSqliteSluiceError(error);
    } finally {
      connection.close();
    }
    await sleep(BUSY_RETRY_MS);
  }
}
