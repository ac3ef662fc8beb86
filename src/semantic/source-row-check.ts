/**
 * Runs a merge's source row check (RowCheck in compile.ts) through the query
 * pipeline, preview only, and refuses the merge when a source has more rows
 * than the cap: SEMANTIC_VALIDATION_ERROR, kind `source_row_cap`, naming
 * every source over it. A merge is never computed over a trimmed source.
 */
import type { Principal } from '../auth/principals.ts';
import type { QueryService } from '../query/query-service.ts';
import type { RowCheck } from './compile.ts';
import { SemanticIssues } from './issues.ts';

/** Long enough for any check the server's own duration cap lets run. */
const CHECK_WAIT_MS = 2 ** 31 - 1;

export async function checkSourceRows(queries: QueryService, principal: Principal, datasource: string, check: RowCheck): Promise<void> {
  const answer = await queries.run(principal, { datasource, sql: check.sql, params: check.params, previewRows: 1, materialize: 'never' }, { waitMs: CHECK_WAIT_MS, onTimeout: 'cancel' });
  const counts = answer.data.preview.rows[0];
  if (counts === undefined || counts.length !== check.explores.length) throw new Error('the merge source row check answered no counts');
  const issues = new SemanticIssues();
  counts.forEach((count, i) => {
    if (Number(count) > check.cap) {
      issues.add('source_row_cap', i, null, `explore "${check.explores[i]}" returns more than ${check.cap} rows (SLUICE_MERGE_SOURCE_ROWS); a merge never trims a source, so filter it or group it more coarsely.`, check.explores[i]);
    }
  });
  issues.throwIfAny();
}
