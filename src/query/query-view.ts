/**
 * Turns a QueryRecord into the contract's `data` and a summary sentence that
 * says what a caller most needs: how much came back, whether it is all, and
 * where the rest is.
 */
import type { SluiceError } from '../errors.ts';
import type { QueryRecord } from './query-record.ts';
import type { QueryData } from './query-types.ts';

export function queryData(record: QueryRecord): QueryData {
  const end = record.finishedAt ?? Date.now();
  return {
    queryId: record.id,
    state: record.state,
    preview: record.preview,
    completeness: record.completeness,
    artifact: record.artifact,
    progress: { ...record.progress, elapsedMs: end - record.startedAt },
  };
}

export function querySummary(data: QueryData): string {
  const c = data.completeness;
  if (data.state === 'RUNNING') {
    return `Still running: ${data.progress.rowsWritten} rows so far; ${c.returnedRows} in the preview. Poll GET /api/queries/${data.queryId}.`;
  }
  if (data.state === 'CANCELLED') return 'The query was cancelled; nothing was kept.';
  const parts: string[] = [];
  if (c.status === 'COMPLETE') parts.push(`Returned all ${c.returnedRows} rows.`);
  else if (c.totalRows !== null) parts.push(`Returned ${c.returnedRows} of ${c.totalRows} rows.`);
  else parts.push(`Returned ${c.returnedRows} rows; the result was cut by ${c.boundedBy} (set by the ${c.limitSetBy}), so the total is unknown.`);
  const a = data.artifact;
  if (a?.decision === 'CREATED') {
    parts.push(a.coverage === 'COMPLETE' ? 'The complete result is available as an artifact.' : `An artifact holds the first ${a.rowCount} rows.`);
  } else if (a?.decision === 'DENIED') parts.push(`No artifact: ${a.message ?? a.reason}`);
  else if (a?.decision === 'FAILED') parts.push(`The artifact could not be written: ${a.message ?? a.reason}`);
  return parts.join(' ');
}

/** A failed query answers with its error (its status kept), and the query id and state in the details. */
export function queryError(record: QueryRecord): SluiceError {
  return record.error!.withDetails({ queryId: record.id, state: record.state });
}

/** A query's answer as every surface gives it: 202 while it runs, 200 once it ended. */
export interface QueryAnswer {
  data: QueryData;
  summary: string;
  status: 200 | 202;
}

/** The answer for a record as it stands now; a failed query throws its error. */
export function answerOf(record: QueryRecord): QueryAnswer {
  if (record.state === 'FAILED') throw queryError(record);
  const data = queryData(record);
  return { data, summary: querySummary(data), status: record.state === 'RUNNING' ? 202 : 200 };
}
