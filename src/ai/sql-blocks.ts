/**
 * Finds the SQL a model suggested in its reply (fenced code blocks marked
 * sql or postgres, or unmarked blocks) and labels each with the
 * datasource's own parser (its driver's `classify`): select, dml, ddl or
 * other. Chat never runs what it finds.
 */
import type { SqlBlockKind } from '../vocabulary.ts';

export interface SqlBlock {
  sql: string;
  kind: SqlBlockKind;
}

const FENCE = /```[ \t]*([A-Za-z0-9_-]*)[^\n]*\n([\s\S]*?)```/g;
const SQL_TAGS = new Set(['sql', 'postgres', 'postgresql', 'psql', 'pgsql', 'plpgsql', '']);

export async function extractSqlBlocks(text: string, classify: (sql: string) => Promise<SqlBlockKind>): Promise<SqlBlock[]> {
  const blocks: SqlBlock[] = [];
  for (const match of text.matchAll(FENCE)) {
    const tag = (match[1] ?? '').toLowerCase();
    const sql = (match[2] ?? '').trim();
    if (!SQL_TAGS.has(tag) || sql === '') continue;
    const kind = await classify(sql);
    // An unmarked block that is not SQL at all (prose, JSON) is not a suggestion.
    if (tag === '' && kind === 'other' && !/^\s*(vacuum|set|explain|copy|begin|commit|analyze|reindex)\b/i.test(sql)) continue;
    blocks.push({ sql, kind });
  }
  return blocks;
}
