/**
 * PostgreSQL's SQL for what the core builds itself: the semantic compiler's
 * statements and the AI prompts. Values are always bound ($n, cast to the
 * field's type), never spliced.
 */
import { SluiceError } from '../../errors.ts';
import type { SemanticValueType, SqlDialect } from '../driver.ts';

const TYPE_OF: Record<SemanticValueType, string> = { string: 'text', number: 'numeric', boolean: 'boolean', date: 'date', timestamp: 'timestamptz' };

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** "schema.table" or "table" (in public), each part optionally double-quoted as PostgreSQL quotes it. */
function splitTableName(text: string): [string, string] {
  const parts = text.match(/("([^"]|"")*"|[^.]+)/g) ?? [];
  const unquote = (p: string) => (p.startsWith('"') ? p.slice(1, -1).replaceAll('""', '"') : p);
  if (parts.length === 1) return ['public', unquote(parts[0]!)];
  if (parts.length === 2) return [unquote(parts[0]!), unquote(parts[1]!)];
  throw new SluiceError('VALIDATION_ERROR', `"${text}" is not a table name; use schema.table.`);
}

export const pgDialect: SqlDialect = {
  name: 'postgresql',
  label: 'PostgreSQL',
  fenceTags: ['postgres', 'postgresql', 'psql', 'pgsql', 'plpgsql'],
  quoteIdentifier,
  quoteRelation: (dotted) => dotted.split('.').map(quoteIdentifier).join('.'),
  parameter: (index, type) => `$${index}::${TYPE_OF[type]}`,
  dateTrunc: (grain, expression, type) => (type === 'date' ? `date_trunc('${grain}', ${expression})::date` : `date_trunc('${grain}', ${expression})`),
  contains: (expression, needle) => `strpos((${expression})::text, ${needle}) > 0`,
  startsWith: (expression, needle) => `starts_with((${expression})::text, ${needle})`,
  orderBy: (expression, direction) => `${expression} ${direction === 'desc' ? 'DESC' : 'ASC'} NULLS LAST`,
  limit: (rows) => `LIMIT ${rows}`,
  fullJoin: true,
  // "invalid input syntax for type integer: \"<text>\"". A sub-select is never folded, so the cast waits for its branch.
  failWith: (text) => `CAST('${text}' || (SELECT '') AS integer)`,
  splitTableName,
};
