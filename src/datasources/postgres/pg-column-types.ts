/**
 * How PostgreSQL's result columns are stored, chosen so nothing is rounded:
 * int8 stays BIGINT, constrained numeric becomes an exact DECIMAL,
 * unconstrained numeric stays decimal text, float4 is stored as DOUBLE
 * parsed from PostgreSQL's shortest text (so 1.1 stays 1.1), and types
 * DuckDB cannot hold exactly keep their text form.
 */
import { planColumns, type PlannedColumn, type StorageKind } from '../../columns/column-plan.ts';

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

export function planPgColumns(infos: ColumnTypeInfo[]): PlannedColumn[] {
  return planColumns(
    infos.map((info) => ({ name: info.name, type: info.typname, storage: storageOf(info), precision: info.numericPrecision, scale: info.numericScale })),
  );
}
