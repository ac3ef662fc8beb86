/**
 * A cancel of one export's statement on the folder's engine. DuckDB's
 * interrupt stops a statement that runs, but a statement begun after it
 * clears it: a cancel that comes before the stream has begun the statement
 * (the export hands out its stopper first) would be lost, and the statement
 * would run to its end. So the cancel is also kept here, and a statement is
 * not begun once it was asked. Beginning one is synchronous (DuckDB's
 * pending query), so no cancel can fall between the check and the begin;
 * from then on the interrupt reaches it.
 */
import type { DuckDBConnection, DuckDBPreparedStatement, DuckDBResult } from '@duckdb/node-api';

export class EngineStop {
  readonly #connection: DuckDBConnection;
  #cancelled = false;

  constructor(connection: DuckDBConnection) {
    this.#connection = connection;
  }

  cancel(): void {
    this.#cancelled = true;
    this.#connection.interrupt();
  }

  /** The statement's streaming result, begun now unless the export was cancelled; fails as an interrupted statement then. */
  async stream(prepared: DuckDBPreparedStatement): Promise<DuckDBResult> {
    if (this.#cancelled) throw new Error('INTERRUPT Error: Interrupted! The export was cancelled before its statement began.');
    return prepared.startStream().getResult();
  }
}
