/**
 * Compiles a whole intent, metric or merge, into one SQL statement with its
 * bound values and the id of every result column. Every validation error of
 * the intent is collected and reported at once (SemanticIssues) before any
 * SQL exists. The SQL is the dialect of the explores' datasource
 * (`dialectOf`), never branched on here; merges are compile-merge.ts.
 */
import type { Principal } from '../auth/principals.ts';
import type { SqlDialect } from '../datasources/driver.ts';
import type { SemanticCatalog } from './catalog.ts';
import { compileMerge } from './compile-merge.ts';
import { compileMetricQuery } from './compile-metric.ts';
import type { SemanticIntentT } from './intent.ts';
import { SemanticIssues } from './issues.ts';
import type { SourceRowCap } from './source-row-cap.ts';
import type { ResultFieldKind } from '../vocabulary.ts';

/** The most rows one merge source may have (SLUICE_MERGE_SOURCE_ROWS) unless the caller says otherwise. */
export const DEFAULT_MERGE_SOURCE_ROWS = 100_000;

export interface ResultField {
  id: string;
  /** The source a dimension or metric comes from; a table calculation has none. */
  source?: 0 | 1;
  kind: ResultFieldKind;
}

export interface CompiledIntent {
  datasource: string;
  sql: string;
  params: unknown[];
  fields: ResultField[];
  /** A merge's cap on its sources' rows, which its statement enforces itself: to name the sources when it fails. */
  sourceRowCap?: SourceRowCap;
}

export function compileIntent(
  catalog: SemanticCatalog,
  dialectOf: (datasource: string) => SqlDialect,
  principal: Principal,
  intent: SemanticIntentT,
  mergeSourceRows = DEFAULT_MERGE_SOURCE_ROWS,
): CompiledIntent {
  const ctx = { catalog, dialectOf, principal, parameters: intent.parameters ?? {}, params: [] as unknown[], issues: new SemanticIssues() };
  if (intent.type === 'merge') return compileMerge(ctx, intent.query, mergeSourceRows);
  const c = compileMetricQuery(ctx, intent.query, null);
  ctx.issues.throwIfAny();
  return {
    datasource: c.explore.datasource,
    sql: [c.sql, c.orderBy, c.limit].filter(Boolean).join('\n'),
    params: ctx.params,
    fields: [...c.dimensions, ...c.metrics].map((f) => ({ id: f.id, source: 0, kind: f.kind })),
  };
}
