/**
 * better-sqlite3's db.transaction() for a driver without one (node:sqlite),
 * so every driver behaves alike: the function runs inside BEGIN IMMEDIATE
 * (the write lock is taken at once, never upgraded half-way), commits when it
 * returns, rolls back and rethrows when it throws, and a transaction started
 * inside another is a savepoint that only undoes its own part.
 */
export interface Exec {
  exec(sql: string): unknown;
}

export type Transaction = <T>(fn: () => T) => () => T;

export function transactionsOver(db: Exec): Transaction {
  let depth = 0;
  return <T>(fn: () => T) =>
    () => {
      const savepoint = depth === 0 ? null : `sluice_nested_${depth}`;
      db.exec(savepoint === null ? 'BEGIN IMMEDIATE' : `SAVEPOINT ${savepoint}`);
      depth++;
      try {
        const result = fn();
        db.exec(savepoint === null ? 'COMMIT' : `RELEASE ${savepoint}`);
        return result;
      } catch (error) {
        try {
          db.exec(savepoint === null ? 'ROLLBACK' : `ROLLBACK TO ${savepoint}; RELEASE ${savepoint}`);
        } catch {
          // SQLite rolls back by itself on some errors (a full disk, I/O): the first error says what happened.
        }
        throw error;
      } finally {
        depth--;
      }
    };
}
