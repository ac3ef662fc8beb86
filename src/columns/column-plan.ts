/**
 * The column model: how each result column travels, PostgreSQL type → the
 * text PostgreSQL puts into the COPY stream → the DuckDB/Parquet type it is
 * stored as → the JSON value a caller sees (value-encoding.ts beside this
 * file), and how names are quoted in the statements built over it. One plan
 * per query, decided before the first row, so the preview, every read and
 * every download encode a value the same way. The export, the store and the
 * semantic compiler all take columns from here.
 *
 * Storage is chosen so nothing is rounded: int8 stays BIGINT, constrained
 * numeric becomes an exact DECIMAL, unconstrained numeric stays decimal text,
 * float4 is stored as DOUBLE parsed from PostgreSQL's shortest text (so 1.1
 * stays 1.1), and types DuckDB cannot hold exactly keep their text form.
 */

/** A result column as callers see it: its name and PostgreSQL type name. */
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
  /** PostgreSQL's type name (pg_type.typname). */
  type: string;
  /** Unique, case-insensitively, so DuckDB and Parquet accept it. */
  storageName: string;
  storage: StorageKind;
  /** DuckDB type used when parsing the CSV stream and in the Parquet file. */
  duckType: string;
}

/** What the database tells us about one result column. */
export interface ColumnTypeInfo {
  name: string;
  typname: string;
  /** pg_type.typcategory of the (base) type. */
  category: string;
  /** For arrays, the element's typname. */
  elementTypname: string | null;
  /** (precision, scale) when a numeric column's typmod is known. */
  numericPrecision: number | null;
  numericScale: number | null;
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

function storageOf(info: ColumnTypeInfo): StorageKind {
  if (info.category === 'A') return 'json_array';
  switch (info.typname) {
    case 'bool':
      return 'bool';
    case 'int2':
    case 'int4':
    case 'oid':
      return 'int';
    case 'int8':
      return 'int8';
    case 'float4':
    case 'float8':
      return 'float';
    case 'numeric':
      return info.numericPrecision !== null && info.numericPrecision <= 38 ? 'decimal' : 'numeric_text';
    case 'date':
      return 'date';
    case 'timestamp':
      return 'timestamp';
    case 'timestamptz':
      return 'timestamptz';
    case 'bytea':
      return 'bytea';
    default:
      return 'text';
  }
}

/** Columns that reads of stored parts add themselves (read_parquet's filename and file_row_number). */
const RESERVED_NAMES = ['filename', 'file_row_number'];

function uniqueName(name: string, taken: Set<string>): string {
  const base = name === '' ? 'column' : name;
  let candidate = base;
  for (let n = 2; taken.has(candidate.toLowerCase()); n++) candidate = `${base}_${n}`;
  taken.add(candidate.toLowerCase());
  return candidate;
}

export function planColumns(infos: ColumnTypeInfo[]): PlannedColumn[] {
  const taken = new Set<string>(RESERVED_NAMES);
  return infos.map((info) => {
    const storage = storageOf(info);
    const duckType =
      storage === 'decimal' ? `DECIMAL(${info.numericPrecision},${info.numericScale ?? 0})` : DUCK_TYPE[storage];
    return { name: info.name, type: info.typname, storageName: uniqueName(info.name, taken), storage, duckType };
  });
}

/** SQL identifier quoting, shared by the PostgreSQL and DuckDB statements we build. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export function quoteLiteral(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}
