/**
 * Finds the SQL a model suggested in its reply (fenced code blocks marked
 * sql or with one of the datasource dialect's own tags, such as postgres,
 * mysql or sqlite, or unmarked blocks) and labels each with the
 * datasource's own parser (its driver's `classify`): select, dml, ddl or
 * other. Chat never runs what it finds.
 */
import type { SqlBlockKind } from '../vocabulary.ts';

export interface SqlBlock {
  sql: string;
  kind: SqlBlockKind;
}

const FENCE = /```[ \t]*([A-Za-z0-9_-]*)[^\n]*\n([\s\S]*?)```/g;
/** `dialectTags`: the fence tags that mark the datasource's own dialect (SqlDialect.fenceTags). */
export async function extractSqlBlocks(text: string, classify: (sql: string) => Promise<SqlBlockKind>, dialectTags: readonly string[]): Promise<SqlBlock[]> {
  const tags = new Set(['sql', '', ...dialectTags]);
  const blocks: SqlBlock[] = [];
  for (const match of text.matchAll(FENCE)) {
    const tag = (match[1] ?? '').toLowerCase();
    const sql = (match[2] ?? '').trim();
    if (!tags.has(tag) || sql === '') continue;
    const kind = await classify(sql);
    // An unmarked block that is not SQL at all (prose, JSON) is not a suggestion.
    if (tag === '' && kind === 'other' && !/^\s*(vacuum|set|explain|copy|begin|commit|analyze|reindex)\b/i.test(sql)) continue;
    blocks.push({ sql, kind });
  }
  return blocks;
}
