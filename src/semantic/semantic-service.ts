/**
 * Runs semantic intents: one validation and compilation, then one execution
 * through the same pipeline as /api/queries (preview, completeness,
 * artifact). Both intents take this path; an invalid one never reaches it.
 * A merge's statement fails itself when a source is over
 * SLUICE_MERGE_SOURCE_ROWS (source-row-cap.ts); that failure is told as the
 * validation error it is, naming each source.
 */
import type { Principal } from '../auth/principals.ts';
import type { SqlDialect } from '../datasources/driver.ts';
import type { Materialize } from '../worker/export-types.ts';
import type { QueryService, WaitPolicy } from '../query/query-service.ts';
import type { QueryAnswer } from '../query/query-view.ts';
import type { QueryData } from '../query/query-types.ts';
import type { SemanticCatalog } from './catalog.ts';
import { compileIntent, DEFAULT_MERGE_SOURCE_ROWS, type ResultField } from './compile.ts';
import { sourceRowCapError } from './source-row-cap.ts';
import type { SemanticIntentT } from './intent.ts';

export interface SemanticRun extends QueryAnswer {
  data: QueryData & { fields: ResultField[] };
}

const DEFAULT_WAIT_MS = 30_000;

export interface RunOptions {
  previewRows?: number | undefined;
  materialize?: Materialize | undefined;
  sessionId?: string | undefined;
  waitMs?: number | undefined;
  /** What to do with a query still running after waitMs (default: answer 202 RUNNING). */
  onTimeout?: WaitPolicy['onTimeout'] | undefined;
}

export class SemanticService {
  readonly catalog: SemanticCatalog;
  readonly #queries: QueryService;
  readonly #dialectOf: (datasource: string) => SqlDialect;
  readonly #mergeSourceRows: number;

  /** `dialectOf` answers the SQL dialect of an explore's datasource; `mergeSourceRows` is SLUICE_MERGE_SOURCE_ROWS. */
  constructor(catalog: SemanticCatalog, queries: QueryService, dialectOf: (datasource: string) => SqlDialect, mergeSourceRows = DEFAULT_MERGE_SOURCE_ROWS) {
    this.catalog = catalog;
    this.#queries = queries;
    this.#dialectOf = dialectOf;
    this.#mergeSourceRows = mergeSourceRows;
  }

  async run(principal: Principal, intent: SemanticIntentT, options: RunOptions = {}): Promise<SemanticRun> {
    const compiled = compileIntent(this.catalog, this.#dialectOf, principal, intent, this.#mergeSourceRows);
    const { sourceRowCap } = compiled;
    const answer = await this.#queries.run(
      principal,
      {
        datasource: compiled.datasource,
        sql: compiled.sql,
        params: compiled.params,
        previewRows: options.previewRows,
        materialize: options.materialize,
        sessionId: options.sessionId,
        // Whether the merge ends before the answer or after (polled), a source over the cap is told as the validation error it is.
        explainFailure: sourceRowCap === undefined ? undefined : (failure) => sourceRowCapError(failure, sourceRowCap),
      },
      { waitMs: options.waitMs ?? DEFAULT_WAIT_MS, onTimeout: options.onTimeout ?? 'continue' },
    );
    return { ...answer, data: { ...answer.data, fields: compiled.fields } };
  }
}
