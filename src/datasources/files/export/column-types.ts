/**
 * How DuckDB's result columns are stored, chosen so nothing is rounded:
 * integers up to 32 bits as INTEGER, BIGINT and UINTEGER as BIGINT, wider
 * integers (UBIGINT, HUGEINT, UHUGEINT, BIGNUM) as their exact text, DECIMAL
 * as the same exact DECIMAL, FLOAT and DOUBLE as DOUBLE (a FLOAT written as
 * its shortest text, so 1.1 stays 1.1), dates and timestamps as themselves
 * (TIMESTAMPTZ in UTC), BLOB as base64, and everything else (TIME,
 * INTERVAL, UUID, ENUM, BIT, JSON, and LIST, ARRAY, STRUCT, MAP and UNION as
 * JSON text) as text. A column's `type` is DuckDB's name for it in lower
 * case.
 */
import { DuckDBDecimalType, DuckDBTypeId, type DuckDBType } from '@duckdb/node-api';
import { planColumns, type PlannedColumn, type StorageKind } from '../../../columns/column-plan.ts';

const STORAGE: Partial<Record<DuckDBTypeId, StorageKind>> = {
  [DuckDBTypeId.BOOLEAN]: 'bool',
  [DuckDBTypeId.TINYINT]: 'int',
  [DuckDBTypeId.SMALLINT]: 'int',
  [DuckDBTypeId.INTEGER]: 'int',
  [DuckDBTypeId.UTINYINT]: 'int',
  [DuckDBTypeId.USMALLINT]: 'int',
  [DuckDBTypeId.BIGINT]: 'int8',
  [DuckDBTypeId.UINTEGER]: 'int8',
  [DuckDBTypeId.UBIGINT]: 'numeric_text',
  [DuckDBTypeId.HUGEINT]: 'numeric_text',
  [DuckDBTypeId.UHUGEINT]: 'numeric_text',
  [DuckDBTypeId.BIGNUM]: 'numeric_text',
  [DuckDBTypeId.FLOAT]: 'float',
  [DuckDBTypeId.DOUBLE]: 'float',
  [DuckDBTypeId.DECIMAL]: 'decimal',
  [DuckDBTypeId.DATE]: 'date',
  [DuckDBTypeId.TIMESTAMP]: 'timestamp',
  [DuckDBTypeId.TIMESTAMP_S]: 'timestamp',
  [DuckDBTypeId.TIMESTAMP_MS]: 'timestamp',
  [DuckDBTypeId.TIMESTAMP_NS]: 'timestamp',
  [DuckDBTypeId.TIMESTAMP_TZ]: 'timestamptz',
  [DuckDBTypeId.BLOB]: 'bytea',
};

export function storageOf(type: DuckDBType): StorageKind {
  return STORAGE[type.typeId] ?? 'text';
}

export function planDuckColumns(columns: { name: string; type: DuckDBType }[]): PlannedColumn[] {
  return planColumns(
    columns.map(({ name, type }) => {
      const decimal = type instanceof DuckDBDecimalType ? { precision: type.width, scale: type.scale } : {};
      // JSON is VARCHAR with an alias; the alias is the name the column was given.
      return { name, type: (type.alias ?? type.toString()).toLowerCase(), storage: storageOf(type), ...decimal };
    }),
  );
}
