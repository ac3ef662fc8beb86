/**
 * Runs semantic intents: one validation and compilation, then one execution
 * through the same pipeline as /api/queries (preview, completeness,
 * artifact). Both intents take this path; an invalid one never reaches it.
 */
import type { Principal } from '../auth/principals.ts';
import type { Materialize } from '../export/export-types.ts';
import type { QueryService } from '../query/query-service.ts';
import { queryData, queryError, querySummary } from '../query/query-view.ts';
import type { QueryData } from '../query/query-types.ts';
import type { SemanticCatalog } from './catalog.ts';
import { compileIntent, type ResultField } from './compile.ts';
import type { SemanticIntentT } from './intent.ts';

export interface SemanticRun {
  data: QueryData & { fields: ResultField[] };
  summary: string;
  status: 200 | 202;
}

export interface RunOptions {
  previewRows?: number | undefined;
  materialize?: Materialize | undefined;
  sessionId?: string | undefined;
  waitMs?: number | undefined;
}

export class SemanticService {
  readonly catalog: SemanticCatalog;
  readonly #queries: QueryService;

  constructor(catalog: SemanticCatalog, queries: QueryService) {
    this.catalog = catalog;
    this.#queries = queries;
  }

  async run(principal: Principal, intent: SemanticIntentT, options: RunOptions = {}): Promise<SemanticRun> {
    const compiled = compileIntent(this.catalog, principal, intent);
    const record = await this.#queries.submit(principal, {
      datasource: compiled.datasource,
      sql: compiled.sql,
      params: compiled.params as (string | number | boolean | null)[],
      previewRows: options.previewRows,
      materialize: options.materialize,
      sessionId: options.sessionId,
    });
    await record.settledWithin(options.waitMs ?? 30_000);
    if (record.state === 'FAILED') throw queryError(record);
    const data = { ...queryData(record), fields: compiled.fields };
    return { data, summary: querySummary(data), status: record.state === 'RUNNING' ? 202 : 200 };
  }
}
