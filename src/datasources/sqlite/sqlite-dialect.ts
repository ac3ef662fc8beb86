/**
 * SQLite's SQL for what the core builds itself: the semantic compiler's
 * statements and the AI prompts. Values are always bound as ?NNN, numbered
 * as the compiler numbers them, never spliced. SQLite has no date type:
 * dates are ISO text, truncated with strftime and date modifiers, and a
 * truncated timestamp is written with the six fractional digits the value
 * encoding gives every timestamp. A boolean parameter is CAST to BOOLEAN,
 * which SQLite reads as a number and the export types as a boolean.
 */
import { SluiceError } from '../../errors.ts';
import type { SemanticValueType, SqlDialect, TimeGrain } from '../driver.ts';

export const SQLITE_DEFAULT_SCHEMA = 'main';

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** "schema.table" or "table" (in main), each part optionally double-quoted. */
function splitTableName(text: string): [string, string] {
  const parts = text.match(/("([^"]|"")*"|[^.]+)/g) ?? [];
  const unquote = (p: string) => (p.startsWith('"') ? p.slice(1, -1).replaceAll('""', '"') : p);
  if (parts.length === 1) return [SQLITE_DEFAULT_SCHEMA, unquote(parts[0]!)];
  if (parts.length === 2) return [unquote(parts[0]!), unquote(parts[1]!)];
  throw new SluiceError('VALIDATION_ERROR', `"${text}" is not a table name; use schema.table.`);
}

function parameter(index: number, type: SemanticValueType): string {
  return type === 'boolean' ? `CAST(?${index} AS BOOLEAN)` : `?${index}`;
}

/** The date modifiers that bring a day to the start of its grain; week starts on Monday, as PostgreSQL's does. */
function startOf(grain: TimeGrain, expression: string): string {
  switch (grain) {
    case 'day':
      return `date(${expression})`;
    case 'week':
      // 'weekday 1' moves to the next Monday on or after; from the day after, a week back is the Monday of its week.
      return `date(${expression}, '+1 day', 'weekday 1', '-7 days')`;
    case 'month':
      return `date(${expression}, 'start of month')`;
    case 'quarter':
      return `date(${expression}, 'start of month', printf('-%d months', (CAST(strftime('%m', ${expression}) AS INTEGER) - 1) % 3))`;
    case 'year':
      return `date(${expression}, 'start of year')`;
  }
}

function dateTrunc(grain: TimeGrain, expression: string, type: 'date' | 'timestamp'): string {
  const day = startOf(grain, expression);
  return type === 'date' ? day : `(${day} || 'T00:00:00.000000')`;
}

export const sqliteDialect: SqlDialect = {
  name: 'sqlite',
  label: 'SQLite',
  fenceTags: ['sqlite', 'sqlite3'],
  quoteIdentifier,
  quoteRelation: (dotted) => dotted.split('.').map(quoteIdentifier).join('.'),
  parameter,
  dateTrunc,
  contains: (expression, needle) => `instr(CAST(${expression} AS TEXT), ${needle}) > 0`,
  startsWith: (expression, needle) => `substr(CAST(${expression} AS TEXT), 1, length(${needle})) = ${needle}`,
  orderBy: (expression, direction) => `${expression} IS NULL, ${expression} ${direction === 'desc' ? 'DESC' : 'ASC'}`,
  limit: (rows) => `LIMIT ${rows}`,
  // FULL JOIN since SQLite 3.39 (2022); every runtime's library here is newer.
  fullJoin: true,
  // "bad JSON path: '<text>'": SQLite raises no error of its own choosing outside a trigger.
  failWith: (text) => `json_extract('{}', '${text}' || (SELECT ''))`,
  splitTableName,
};
