/**
 * The column model: how each result column travels, the engine's type →
 * the text its driver puts into the export's CSV stream → the DuckDB/Parquet
 * type it is stored as → the JSON value a caller sees (value-encoding.ts
 * beside this file), and how names are quoted in the DuckDB statements built
 * over it. A driver chooses each column's storage (postgres/pg-column-types.ts
 * for PostgreSQL); the plan is made once per query, before the first row, so
 * the preview, every read and every download encode a value the same way.
 */

/** A result column as callers see it: its name and its type as the engine names it. */
export interface ColumnOut {
  name: string;
  type: string;
}

/** What a stored column is, which fixes its DuckDB type and its JSON encoding. */
export type StorageKind =
  | 'bool'
  | 'int'
  | 'int8'
  | 'float'
  | 'decimal'
  | 'numeric_text'
  | 'text'
  | 'date'
  | 'timestamp'
  | 'timestamptz'
  | 'bytea'
  | 'json_array';

export interface PlannedColumn {
  /** The name as the query returned it; duplicates are legal. */
  name: string;
  /** The engine's type name (PostgreSQL's pg_type.typname). */
  type: string;
  /** Unique, case-insensitively, so DuckDB and Parquet accept it. */
  storageName: string;
  storage: StorageKind;
  /** DuckDB type used when parsing the CSV stream and in the Parquet file. */
  duckType: string;
}

/** What a driver decided for one result column: its name, its type as the engine names it, and how it is stored. */
export interface ColumnChoice {
  name: string;
  type: string;
  storage: StorageKind;
  /** (precision, scale) of a `decimal` column. */
  precision?: number | null;
  scale?: number | null;
}

const DUCK_TYPE: Record<StorageKind, string> = {
  bool: 'BOOLEAN',
  int: 'INTEGER',
  int8: 'BIGINT',
  float: 'DOUBLE',
  decimal: 'DECIMAL',
  numeric_text: 'VARCHAR',
  text: 'VARCHAR',
  date: 'DATE',
  timestamp: 'TIMESTAMP',
  timestamptz: 'TIMESTAMPTZ',
  bytea: 'VARCHAR',
  json_array: 'VARCHAR',
};

/** Columns that reads of stored parts add themselves (read_parquet's filename and file_row_number). */
const RESERVED_NAMES = ['filename', 'file_row_number'];

function uniqueName(name: string, taken: Set<string>): string {
  const base = name === '' ? 'column' : name;
  let candidate = base;
  for (let n = 2; taken.has(candidate.toLowerCase()); n++) candidate = `${base}_${n}`;
  taken.add(candidate.toLowerCase());
  return candidate;
}

/** The plan of a result's columns from a driver's choices: each column's DuckDB type and a storage name unique in the artifact. */
export function planColumns(choices: ColumnChoice[]): PlannedColumn[] {
  const taken = new Set<string>(RESERVED_NAMES);
  return choices.map(({ name, type, storage, precision, scale }) => {
    const duckType = storage === 'decimal' ? `DECIMAL(${precision},${scale ?? 0})` : DUCK_TYPE[storage];
    return { name, type, storageName: uniqueName(name, taken), storage, duckType };
  });
}

/** SQL identifier quoting of the DuckDB statements built over stored parts. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export function quoteLiteral(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}
