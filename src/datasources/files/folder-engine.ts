/**
 * One files datasource's DuckDB: the locked instance (locked-instance.ts)
 * and a view per table of the folder (folder-scan.ts), kept in step with
 * the folder while the server runs. Before every listing, description or
 * query the folder is listed again (names, sizes and modification times of
 * the folder, its subfolders and their files); when anything differs from
 * the last listing, the views are made again before the caller goes on, so
 * a file added, removed, replaced or given new columns is seen by the next
 * statement, without a restart. A statement already running keeps the
 * files it opened: DuckDB reads a file replaced under it either as it was
 * (a rename keeps the old file open) or fails with an IO or format error,
 * which the statement's caller gets as SQL_ERROR; the process goes on.
 */
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { quoteIdent, quoteLiteral } from '../../columns/column-plan.ts';
import { openLockedInstance, type LockedInstance, type LockedInstanceOptions } from './locked-instance.ts';
import { DEFAULT_SCHEMA, scanFolder, type FileTable, type FolderScan } from './folder-scan.ts';

/** A table whose view was made, with what the file says of its size when that is cheap. */
export interface ServedTable extends FileTable {
  estimatedRows: number | null;
}

export interface FolderState {
  tables: ServedTable[];
  /** Files skipped by the layout rules, and files DuckDB could not read, one line each. */
  skipped: string[];
}

const READERS = { parquet: 'read_parquet', csv: 'read_csv', json: 'read_json' } as const;

/** A connection lent for one export; `release` ends its transaction and gives it back (or closes it). */
export interface LentConnection {
  connection: DuckDBConnection;
  release(): Promise<void>;
}

export class FolderEngine {
  readonly folder: string;
  readonly #log: (line: string) => void;
  readonly #options: LockedInstanceOptions;
  #instance: Promise<LockedInstance> | null = null;
  /** Streaming connections lent now: each to one export at a time. */
  readonly #lent = new WeakSet<DuckDBConnection>();
  #signature: string | null = null;
  #state: FolderState = { tables: [], skipped: [] };
  /** Skip lines already logged: a file skipped stays skipped at every later scan, and is logged once. */
  readonly #logged = new Set<string>();
  /** Refreshes run one after another: two callers never rebuild the views at once. */
  #refreshing: Promise<unknown> = Promise.resolve();

  /** `options`: the engine's threads, and the streaming buffer of the connection exports are lent (locked-instance.ts). */
  constructor(folder: string, log: (line: string) => void, options: LockedInstanceOptions = { threads: 1 }) {
    this.folder = folder;
    this.#log = log;
    this.#options = options;
  }

  /** The folder's tables as of now, the views rebuilt first when the folder changed. */
  current(): Promise<FolderState> {
    const next = this.#refreshing.then(() => this.#refresh());
    this.#refreshing = next.catch(() => undefined);
    return next;
  }

  /** A new connection to the engine, its views current; the caller closes it. */
  async connect(): Promise<DuckDBConnection> {
    await this.current();
    return (await this.#engine()).connect();
  }

  /**
   * A connection for one export's statement, the views current: the one with
   * the streaming buffer when it is free (an export at a time holds it; it is
   * rolled back and kept on release), otherwise a new one, closed on release.
   */
  async lendForExport(): Promise<LentConnection> {
    await this.current();
    const locked = await this.#locked();
    const streaming = locked.streaming;
    if (streaming === null || this.#lent.has(streaming)) {
      const connection = await locked.instance.connect();
      return { connection, release: async () => connection.closeSync() };
    }
    this.#lent.add(streaming);
    let released = false;
    return {
      connection: streaming,
      release: async () => {
        if (released) return;
        released = true;
        // Whatever the export left (a transaction, an interrupted statement), the next one starts clean; a connection that
        // cannot end it is closed, and the instance's later exports make their own.
        try {
          await streaming.run('ROLLBACK');
        } catch (error) {
          if (!/no transaction is active/i.test(String(error))) {
            streaming.closeSync();
            locked.streaming = null;
          }
        }
        this.#lent.delete(streaming);
      },
    };
  }

  async close(): Promise<void> {
    const locked = this.#instance;
    this.#instance = null;
    if (locked === null) return;
    const opened = await locked.catch(() => null);
    opened?.streaming?.closeSync();
    opened?.instance.closeSync();
  }

  #engine(): Promise<DuckDBInstance> {
    return this.#locked().then((locked) => locked.instance);
  }

  #locked(): Promise<LockedInstance> {
    if (this.#instance === null) {
      this.#instance = openLockedInstance(this.folder, this.#options);
      this.#instance.catch(() => (this.#instance = null));
    }
    return this.#instance;
  }

  async #refresh(): Promise<FolderState> {
    const scan = await scanFolder(this.folder);
    if (scan.signature === this.#signature) return this.#state;
    const connection = await (await this.#engine()).connect();
    try {
      this.#state = await rebuildViews(connection, scan, this.#state);
    } finally {
      connection.closeSync();
    }
    this.#signature = scan.signature;
    for (const line of this.#state.skipped.filter((l) => !this.#logged.has(l))) {
      this.#logged.add(line);
      this.#log(line);
    }
    return this.#state;
  }
}

/** Drops the views of files gone and (re)makes one per table found; a file DuckDB cannot read is skipped with a line. */
async function rebuildViews(connection: DuckDBConnection, scan: FolderScan, before: FolderState): Promise<FolderState> {
  const keep = new Set(scan.tables.map((t) => viewName(t)));
  for (const gone of before.tables.filter((t) => !keep.has(viewName(t)))) await connection.run(`DROP VIEW IF EXISTS ${viewName(gone)}`);
  const schemas = new Set(scan.tables.map((t) => t.schema));
  for (const old of new Set(before.tables.map((t) => t.schema))) {
    if (!schemas.has(old) && old !== DEFAULT_SCHEMA) await connection.run(`DROP SCHEMA IF EXISTS ${quoteIdent(old)} CASCADE`);
  }
  const tables: ServedTable[] = [];
  const skipped = [...scan.skipped];
  for (const table of scan.tables) {
    try {
      await connection.run(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(table.schema)}`);
      await connection.run(`CREATE OR REPLACE VIEW ${viewName(table)} AS SELECT * FROM ${READERS[table.format]}(${quoteLiteral(table.path)})`);
      tables.push({ ...table, estimatedRows: await estimateRows(connection, table) });
    } catch {
      await connection.run(`DROP VIEW IF EXISTS ${viewName(table)}`).catch(() => undefined);
      skipped.push(`Skipped ${table.relative}: DuckDB cannot read it as ${table.format.toUpperCase()}.`);
    }
  }
  return { tables, skipped };
}

function viewName(table: { schema: string; name: string }): string {
  return `${quoteIdent(table.schema)}.${quoteIdent(table.name)}`;
}

/** Parquet keeps its row count in the footer; CSV and JSON would have to be read whole. */
async function estimateRows(connection: DuckDBConnection, table: FileTable): Promise<number | null> {
  if (table.format !== 'parquet') return null;
  const reader = await connection.runAndReadAll(`SELECT sum(num_rows)::BIGINT AS n FROM parquet_file_metadata(${quoteLiteral(table.path)})`);
  const n = reader.getRowsJS()[0]?.[0];
  return n === null || n === undefined ? null : Number(n);
}
