/**
 * Finds the SQL a model suggested in its reply (fenced code blocks marked
 * sql or postgres, or unmarked blocks) and labels each with PostgreSQL's own
 * parser: select, dml, ddl or other. Chat never runs what it finds.
 */
import { classifySql } from '../query/sql-safety.ts';
import type { SqlBlockKind } from '../vocabulary.ts';

export interface SqlBlock {
  sql: string;
  kind: SqlBlockKind;
}

const FENCE = /```[ \t]*([A-Za-z0-9_-]*)[^\n]*\n([\s\S]*?)```/g;
const SQL_TAGS = new Set(['sql', 'postgres', 'postgresql', 'psql', 'pgsql', 'plpgsql', '']);

export async function extractSqlBlocks(text: string): Promise<SqlBlock[]> {
  const blocks: SqlBlock[] = [];
  for (const match of text.matchAll(FENCE)) {
    const tag = (match[1] ?? '').toLowerCase();
    const sql = (match[2] ?? '').trim();
    if (!SQL_TAGS.has(tag) || sql === '') continue;
    const kind = await classifySql(sql);
    // An unmarked block that is not SQL at all (prose, JSON) is not a suggestion.
    if (tag === '' && kind === 'other' && !/^\s*(vacuum|set|explain|copy|begin|commit|analyze|reindex)\b/i.test(sql)) continue;
    blocks.push({ sql, kind });
  }
  return blocks;
}
