/**
 * SLUICE_MERGE_SOURCE_ROWS inside the merge's one statement. Each source's
 * CTE reads at most one row past the cap, so an engine stops reading a
 * source once it is over; a one-row guard counts those rows and, when a
 * source is over, fails the statement itself (the dialect's `failWith`)
 * with a marker naming every source over the cap. The merged rows are
 * joined to the guard (which always has its row, even when the merge has
 * none), so the guard is evaluated before any row is returned, and no row
 * of a merge over a trimmed source is ever given. The marker coming back in
 * the engine's error becomes SEMANTIC_VALIDATION_ERROR, kind
 * `source_row_cap`, naming each source.
 */
import type { SqlDialect } from '../datasources/driver.ts';
import { SluiceError } from '../errors.ts';
import { SemanticIssues } from './issues.ts';

const MARKER = 'sluice_source_row_cap:';

/** What a compiled merge needs to tell its row cap failure from any other. */
export interface SourceRowCap {
  cap: number;
  /** The explore of each source, to name it. */
  explores: string[];
}

/** A source's CTE body: its rows, at most one past the cap. */
export function cappedSource(dialect: SqlDialect, sql: string, index: number, cap: number): string {
  return `SELECT * FROM (\n${sql}\n) AS ${dialect.quoteIdentifier(`q${index}`)}\n${dialect.limit(cap + 1)}`;
}

/**
 * The guard CTE's body: one row, `ok` = 1, or the statement fails naming the
 * sources (s0, s1, ...) over the cap: one branch per set of sources over it,
 * largest first, so the error's text is a literal every engine can quote.
 */
export function guardRow(dialect: SqlDialect, sources: number, cap: number): string {
  const over = (i: number) => `(SELECT count(*) FROM ${dialect.quoteIdentifier(`s${i}`)}) > ${cap}`;
  const sets = Array.from({ length: 2 ** sources - 1 }, (_, k) => 2 ** sources - 1 - k).map((mask) => [...Array(sources).keys()].filter((i) => mask & (1 << i)));
  sets.sort((a, b) => b.length - a.length);
  const branches = sets.map((set) => `WHEN ${set.map(over).join(' AND ')} THEN ${dialect.failWith(`${MARKER}${set.map((i) => `${i},`).join('')}`)}`);
  return `SELECT CASE ${branches.join(' ')} ELSE 1 END AS ${dialect.quoteIdentifier('ok')}`;
}

/**
 * The merge's statement failed: when its guard failed it, the error that
 * names each source over the cap; null when it failed for any other reason.
 */
export function sourceRowCapError(error: unknown, cap: SourceRowCap): SluiceError | null {
  const message = error instanceof Error ? error.message : '';
  const at = message.indexOf(MARKER);
  if (at < 0) return null;
  const sources = [...message.slice(at + MARKER.length).matchAll(/(\d+),/gy)].map((m) => Number(m[1]));
  const issues = new SemanticIssues();
  for (const i of sources.length > 0 ? sources : cap.explores.map((_, i) => i)) {
    const explore = cap.explores[i];
    if (explore === undefined) continue;
    issues.add('source_row_cap', i, null, `explore "${explore}" returns more than ${cap.cap} rows (SLUICE_MERGE_SOURCE_ROWS); a merge never trims a source, so filter it or group it more coarsely.`, explore);
  }
  return issues.error();
}
