/**
 * MySQL's and MariaDB's SQL for what the core builds itself: the semantic
 * compiler's statements and the AI prompts. Values are always bound, never
 * spliced by the compiler: a parameter is `:n`, numbered as the compiler
 * numbers them (a number may repeat, and they need not appear in order),
 * which the export binds (export/bind-params.ts). The two engines share
 * this SQL; only the name and label differ.
 */
import { SluiceError } from '../../errors.ts';
import type { DialectName, SemanticValueType, SqlDialect, TimeGrain } from '../driver.ts';
import type { MysqlFlavor } from './sql-parser.ts';

function quoteIdentifier(name: string): string {
  return `\`${name.replaceAll('`', '``')}\``;
}

/**
 * MySQL has no boolean type (BOOLEAN is TINYINT(1)), so the one expression
 * it types as a single bit stands for a boolean value: a BIT(1) column of
 * JSON_TABLE (read back as true or false, column-types.ts).
 */
function booleanParameter(placeholder: string): string {
  return `(SELECT \`b\` FROM JSON_TABLE(JSON_ARRAY(${placeholder} IS TRUE), '$[*]' COLUMNS (\`b\` BIT(1) PATH '$')) AS \`sluice_bool\`)`;
}

function parameter(index: number, type: SemanticValueType): string {
  const placeholder = `:${index}`;
  switch (type) {
    case 'string':
      return placeholder;
    case 'number':
      return `CAST(${placeholder} AS DECIMAL(65,30))`;
    case 'boolean':
      return booleanParameter(placeholder);
    case 'date':
      return `CAST(${placeholder} AS DATE)`;
    case 'timestamp':
      return `CAST(${placeholder} AS DATETIME(6))`;
  }
}

/** The first day of `grain` containing the date `day` (an expression of type DATE). */
function truncatedDate(grain: TimeGrain, day: string): string {
  switch (grain) {
    case 'day':
      return day;
    // WEEKDAY counts from Monday = 0, as PostgreSQL's date_trunc('week') starts on Monday.
    case 'week':
      return `DATE_SUB(${day}, INTERVAL WEEKDAY(${day}) DAY)`;
    case 'month':
      return `DATE_SUB(${day}, INTERVAL DAYOFMONTH(${day}) - 1 DAY)`;
    case 'quarter':
      return `DATE_ADD(MAKEDATE(YEAR(${day}), 1), INTERVAL (QUARTER(${day}) - 1) * 3 MONTH)`;
    case 'year':
      return `MAKEDATE(YEAR(${day}), 1)`;
  }
}

function dateTrunc(grain: TimeGrain, expression: string, type: 'date' | 'timestamp'): string {
  const date = truncatedDate(grain, `CAST(${expression} AS DATE)`);
  return type === 'date' ? `CAST(${date} AS DATE)` : `CAST(${date} AS DATETIME(6))`;
}

/** Bytes against bytes: a case- and accent-sensitive match, as PostgreSQL's strpos is, whatever the column's collation. */
const bytes = (expression: string) => `CAST(${expression} AS BINARY)`;

/** "schema.table" or "table" (in the default schema), each part optionally backquoted. */
function splitter(defaultSchema: string | undefined): (text: string) => [string, string] {
  return (text) => {
    const parts = text.match(/(`([^`]|``)*`|[^.]+)/g) ?? [];
    const unquote = (p: string) => (p.startsWith('`') ? p.slice(1, -1).replaceAll('``', '`') : p);
    if (parts.length === 2) return [unquote(parts[0]!), unquote(parts[1]!)];
    if (parts.length === 1 && defaultSchema !== undefined) return [defaultSchema, unquote(parts[0]!)];
    const form = defaultSchema === undefined ? 'database.table' : 'table or database.table';
    throw new SluiceError('VALIDATION_ERROR', `"${text}" is not a table name; use ${form}.`);
  };
}

const LABELS: Record<MysqlFlavor, string> = { mariadb: 'MariaDB', mysql: 'MySQL' };

/** The dialect of one flavor; table names without a database are in `defaultSchema` (the URL's database). */
export function mysqlDialect(flavor: MysqlFlavor, defaultSchema?: string): SqlDialect {
  const name: DialectName = flavor;
  return {
    name,
    label: LABELS[flavor],
    fenceTags: ['mysql', 'mariadb'],
    quoteIdentifier,
    quoteRelation: (dotted) => dotted.split('.').map(quoteIdentifier).join('.'),
    parameter,
    dateTrunc,
    contains: (expression, needle) => `LOCATE(${bytes(needle)}, ${bytes(expression)}) > 0`,
    startsWith: (expression, needle) => `LOCATE(${bytes(needle)}, ${bytes(expression)}) = 1`,
    orderBy: (expression, direction) => `${expression} IS NULL, ${expression} ${direction === 'desc' ? 'DESC' : 'ASC'}`,
    limit: (rows) => `LIMIT ${rows}`,
    // Neither MariaDB nor MySQL runs FULL [OUTER] JOIN.
    fullJoin: false,
    // "BIGINT UNSIGNED value is out of range in '... octet_length('<text>')'": an error even in a
    // SELECT, where a failed CAST is only a warning; the message quotes the expression.
    failWith: (text) => `CAST((SELECT 0) AS UNSIGNED) - LENGTH('${text}')`,
    splitTableName: splitter(defaultSchema),
  };
}
