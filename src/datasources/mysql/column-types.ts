/**
 * How MySQL's and MariaDB's result columns are stored, from the result's
 * field metadata before the first row, chosen so nothing is rounded:
 * BIGINT UNSIGNED and DECIMAL wider than DuckDB's 38 digits keep their exact
 * text, TIMESTAMP is UTC (the session's time zone), TIME keeps its text (it
 * runs past 24 hours and below zero), BIT(1) is a boolean and wider BITs
 * their unsigned value as exact text, and binary strings are base64.
 * `type` is the engine's own name for the column's type, in lower case.
 */
import { planColumns, type ColumnChoice, type PlannedColumn, type StorageKind } from '../../columns/column-plan.ts';

/** What the server says about one result column (mysql2's ColumnDefinition). */
export interface MysqlField {
  name: string;
  columnType: number;
  flags: number;
  columnLength: number;
  decimals: number;
  characterSet: number;
}

/**
 * How a column's wire bytes become the text the CSV carries (row-values.ts):
 * `digits` is text the server writes without a comma, quote or line break
 * (numbers, YEAR, TIME), copied as it is.
 */
export type ValueReader = 'text' | 'digits' | 'base64' | 'bit-bool' | 'bit-number' | 'date' | 'datetime' | 'timestamp';

export interface MysqlColumn {
  choice: ColumnChoice;
  reader: ValueReader;
}

const UNSIGNED = 32;
const ENUM = 256;
const SET = 2048;
const BINARY_CHARSET = 63;
const T = {
  DECIMAL: 0, TINY: 1, SHORT: 2, LONG: 3, FLOAT: 4, DOUBLE: 5, NULL: 6, TIMESTAMP: 7, LONGLONG: 8, INT24: 9, DATE: 10, TIME: 11,
  DATETIME: 12, YEAR: 13, NEWDATE: 14, VARCHAR: 15, BIT: 16, JSON: 245, NEWDECIMAL: 246, ENUM: 247, SET: 248, TINY_BLOB: 249,
  MEDIUM_BLOB: 250, LONG_BLOB: 251, BLOB: 252, VAR_STRING: 253, STRING: 254, GEOMETRY: 255,
} as const;

const INTEGERS: Record<number, string> = { [T.TINY]: 'tinyint', [T.SHORT]: 'smallint', [T.INT24]: 'mediumint', [T.LONG]: 'int', [T.LONGLONG]: 'bigint' };
const FIXED: Record<number, [string, StorageKind, ValueReader]> = {
  [T.FLOAT]: ['float', 'float', 'digits'],
  [T.DOUBLE]: ['double', 'float', 'digits'],
  [T.NULL]: ['null', 'text', 'text'],
  [T.TIMESTAMP]: ['timestamp', 'timestamptz', 'timestamp'],
  [T.DATE]: ['date', 'date', 'date'],
  [T.NEWDATE]: ['date', 'date', 'date'],
  [T.TIME]: ['time', 'text', 'digits'],
  [T.DATETIME]: ['datetime', 'timestamp', 'datetime'],
  [T.YEAR]: ['year', 'int', 'digits'],
  [T.JSON]: ['json', 'text', 'text'],
  [T.GEOMETRY]: ['geometry', 'bytea', 'base64'],
};

/** TINYBLOB, BLOB, MEDIUMBLOB and LONGBLOB (TEXT alike) all arrive as BLOB: the length in bytes tells them apart. */
function blobName(length: number, binary: boolean): string {
  // Text lengths count bytes at up to 4 per character.
  const size = length <= 255 * 4 ? 'tiny' : length <= 65535 * 4 ? '' : length <= 16777215 * 4 ? 'medium' : 'long';
  return `${size}${binary ? 'blob' : 'text'}`;
}

function stringColumn(field: MysqlField): [string, StorageKind, ValueReader] {
  const binary = field.characterSet === BINARY_CHARSET;
  const storage: StorageKind = binary ? 'bytea' : 'text';
  const reader: ValueReader = binary ? 'base64' : 'text';
  if ((field.flags & ENUM) !== 0 || field.columnType === T.ENUM) return ['enum', 'text', 'text'];
  if ((field.flags & SET) !== 0 || field.columnType === T.SET) return ['set', 'text', 'text'];
  if (field.columnType === T.STRING) return [binary ? 'binary' : 'char', storage, reader];
  if (field.columnType === T.VAR_STRING || field.columnType === T.VARCHAR) return [binary ? 'varbinary' : 'varchar', storage, reader];
  return [blobName(field.columnLength, binary), storage, reader];
}

/** DECIMAL(p,s): the metadata's length counts the digits, a point when s > 0, and a sign unless unsigned. */
function decimalColumn(field: MysqlField): ColumnChoice {
  const unsigned = (field.flags & UNSIGNED) !== 0;
  const scale = field.decimals;
  const precision = field.columnLength - (scale > 0 ? 1 : 0) - (unsigned ? 0 : 1);
  const fits = precision >= 1 && precision <= 38 && scale <= precision;
  return fits ? { name: field.name, type: 'decimal', storage: 'decimal', precision, scale } : { name: field.name, type: 'decimal', storage: 'numeric_text' };
}

function columnOf(field: MysqlField): MysqlColumn {
  const { name, columnType } = field;
  const unsigned = (field.flags & UNSIGNED) !== 0;
  const integer = INTEGERS[columnType];
  if (integer !== undefined) {
    const type = unsigned ? `${integer} unsigned` : integer;
    // INTEGER holds every 8-, 16- and 24-bit value and a signed 32-bit one; past that BIGINT, and past BIGINT exact text.
    let storage: StorageKind = 'int';
    if (columnType === T.LONGLONG) storage = unsigned ? 'numeric_text' : 'int8';
    else if (columnType === T.LONG && unsigned) storage = 'int8';
    return { choice: { name, type, storage }, reader: 'digits' };
  }
  if (columnType === T.NEWDECIMAL || columnType === T.DECIMAL) return { choice: decimalColumn(field), reader: 'digits' };
  if (columnType === T.BIT) {
    const single = field.columnLength === 1;
    return { choice: { name, type: 'bit', storage: single ? 'bool' : 'numeric_text' }, reader: single ? 'bit-bool' : 'bit-number' };
  }
  const [type, storage, reader] = FIXED[columnType] ?? stringColumn(field);
  return { choice: { name, type, storage }, reader };
}

export function mysqlColumns(fields: MysqlField[]): { columns: PlannedColumn[]; readers: ValueReader[] } {
  const planned = fields.map(columnOf);
  return { columns: planColumns(planned.map((c) => c.choice)), readers: planned.map((c) => c.reader) };
}
