/**
 * The schema a model is shown, bounded for large databases: the tables most
 * relevant to the conversation in full (columns, keys, size), the rest only
 * named, and a note whenever the picture is partial. The exact text is
 * returned to the caller as `schema`, so what the model saw is never a guess.
 */
import { describeTable, listTables, type TableDetail } from '../datasources/introspection.ts';
import type { Datasource } from '../datasources/registry.ts';

const MAX_LISTED = 300;
const MAX_DETAILED = 8;

function words(text: string): Set<string> {
  return new Set(text.toLowerCase().split(/[^a-z0-9_]+/).filter((w) => w.length > 2));
}

/** How many of the conversation's words a table's name mentions (singular and plural alike). */
function relevance(name: string, vocabulary: Set<string>): number {
  let score = 0;
  for (const part of name.toLowerCase().split('_')) {
    for (const word of vocabulary) {
      if (word === part || `${word}s` === part || word === `${part}s` || (part.length > 3 && word.startsWith(part))) score++;
    }
  }
  return score;
}

function describe(t: TableDetail): string {
  const fks = new Map<string, string>();
  for (const fk of t.foreignKeys) fk.columns.forEach((c, i) => fks.set(c, `${fk.references.schema}.${fk.references.table}.${fk.references.columns[i]}`));
  const columns = t.columns.map((c) => {
    const notes = [t.primaryKey.includes(c.name) ? 'PK' : '', fks.has(c.name) ? `-> ${fks.get(c.name)}` : '', c.nullable ? '' : 'not null'].filter(Boolean);
    return `  ${c.name} ${c.type}${notes.length ? ` (${notes.join(', ')})` : ''}`;
  });
  const size = t.estimatedRows === null ? '' : ` (~${t.estimatedRows} rows)`;
  return `${t.schema}.${t.name}${size}:\n${columns.join('\n')}`;
}

export async function schemaContext(ds: Datasource, conversation: string): Promise<string> {
  const { tables, total } = await listTables(ds, { limit: MAX_LISTED });
  const vocabulary = words(conversation);
  const ranked = tables
    .map((t, i) => ({ t, score: relevance(t.name, vocabulary), i }))
    .sort((a, b) => b.score - a.score || (b.t.estimatedRows ?? 0) - (a.t.estimatedRows ?? 0) || a.i - b.i);
  const detailed = ranked.slice(0, MAX_DETAILED).map((r) => r.t);
  const details: string[] = [];
  for (const t of detailed) {
    const d = await describeTable(ds, t.schema, t.name);
    if (d !== null) details.push(describe(d));
  }
  const named = ranked.slice(MAX_DETAILED).map((r) => `${r.t.schema}.${r.t.name}`);
  const partial = named.length > 0 || total > tables.length;
  const header = `Datasource "${ds.id}" (${ds.driver.dialect.label}). ${total} table(s) and view(s)${partial ? `; ${details.length} shown in full (the most relevant), the others only named` : ''}.`;
  const lines = [header, '', ...details];
  if (named.length > 0) lines.push('', `Other tables (columns not shown): ${named.join(', ')}`);
  if (total > tables.length) lines.push('', `${total - tables.length} more table(s) are not listed at all.`);
  if (partial) lines.push('', 'This schema is partial: ask for a table by name if it is not shown in full.');
  return lines.join('\n');
}
