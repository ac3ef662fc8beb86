/**
 * DuckDB's SQL for what the core builds itself: the semantic compiler's
 * statements and the AI prompts. Values are always bound ($n, cast to the
 * field's type), never spliced; identifiers are double-quoted, so a table
 * named after a file keeps every character of its name.
 */
import { SluiceError } from '../../errors.ts';
import type { SemanticValueType, SqlDialect } from '../driver.ts';
import { DEFAULT_SCHEMA } from './folder-scan.ts';

const TYPE_OF: Record<SemanticValueType, string> = { string: 'VARCHAR', number: 'DOUBLE', boolean: 'BOOLEAN', date: 'DATE', timestamp: 'TIMESTAMPTZ' };

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** "schema.table" or "table" (in main), each part optionally double-quoted as DuckDB quotes it. */
function nameParts(text: string): string[] {
  const parts = text.match(/("([^"]|"")*"|[^.]+)/g) ?? [];
  return parts.map((p) => (p.startsWith('"') ? p.slice(1, -1).replaceAll('""', '"') : p));
}

function splitTableName(text: string): [string, string] {
  const parts = nameParts(text);
  if (parts.length === 1) return [DEFAULT_SCHEMA, parts[0]!];
  if (parts.length === 2) return [parts[0]!, parts[1]!];
  throw new SluiceError('VALIDATION_ERROR', `"${text}" is not a table name; use schema.table.`);
}

export const duckdbDialect: SqlDialect = {
  name: 'duckdb',
  label: 'DuckDB',
  fenceTags: ['duckdb'],
  quoteIdentifier,
  quoteRelation: (dotted) => nameParts(dotted).map(quoteIdentifier).join('.'),
  parameter: (index, type) => `CAST($${index} AS ${TYPE_OF[type]})`,
  // date_trunc of a DATE answers a TIMESTAMP in DuckDB: cast back so a date stays a date.
  dateTrunc: (grain, expression, type) =>
    type === 'date' ? `CAST(date_trunc('${grain}', ${expression}) AS DATE)` : `date_trunc('${grain}', ${expression})`,
  contains: (expression, needle) => `strpos(CAST(${expression} AS VARCHAR), ${needle}) > 0`,
  startsWith: (expression, needle) => `starts_with(CAST(${expression} AS VARCHAR), ${needle})`,
  orderBy: (expression, direction) => `${expression} ${direction === 'desc' ? 'DESC' : 'ASC'} NULLS LAST`,
  limit: (rows) => `LIMIT ${rows}`,
  fullJoin: true,
  failWith: (text) => `error('${text}' || (SELECT ''))`,
  splitTableName,
};
