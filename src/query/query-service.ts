/**
 * The query use-case, the one path every caller takes (the query routes, the
 * semantic layer, the agent's and MCP's tools): `run` submits a statement
 * and waits for it within a bound; `submit` is its steps: plan (query-plan.ts:
 * check the statement, work out the effective limits), admit
 * (the concurrency cap and the quota), execute (the datasource's turn, the
 * export in a worker), and decide what becomes of the artifact. Staging is
 * owned by `#execute` alone: whatever does not end in a commit is aborted
 * there. A store that cannot be reached costs the artifact, never the
 * answer: the preview still comes back, with `artifact.decision: FAILED`,
 * `reason: STORAGE_UNAVAILABLE`. Query state lives in memory for an hour
 * after it ends (and, with replicas, in the catalog); a small entry of each
 * query stays in its principal's history (query-history.ts, fed by the
 * onStarted and onEnded watchers) for days; artifacts are what lasts.
 */
import { randomUUID } from 'node:crypto';
import type { Config } from '../config.ts';
import { SluiceError, toSluiceError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { Principal } from '../auth/principals.ts';
import type { ArtifactStore, Staging, Usage } from '../artifacts/types.ts';
import type { DatasourceRegistry } from '../datasources/registry.ts';
import type { ExportResult } from '../worker/export-types.ts';
import { finalCompleteness, runningCompleteness, skippedDecision } from './completeness.ts';
import { planQuery, type Plan, type QueryRequest } from './query-plan.ts';

export type { QueryRequest } from './query-plan.ts';
import type { WorkerPool } from '../worker/worker-pool.ts';
import { QueryRecord } from './query-record.ts';
import { answerOf, type QueryAnswer } from './query-view.ts';
import { SharedQueries } from './shared-queries.ts';
import type { SharedQueriesPort } from '../catalog/ports/shared-queries-port.ts';
import type { ArtifactDecision, EndedQuery, StartedQuery } from './query-types.ts';
import { currentRequestId, currentRoute } from '../runtime/request-scope.ts';

/** The request that submitted a query, taken when it is submitted: the query outlives the answer. */
interface Origin {
  requestId: string | null;
  route: string | null;
}


/**
 * How long `run` waits, and what happens to a query still running then:
 * `continue` answers 202 RUNNING (the caller polls), `cancel` stops it and
 * answers its final state (for callers that cannot poll, like a tool call).
 */
export interface WaitPolicy {
  waitMs: number;
  onTimeout: 'continue' | 'cancel';
}


/** What admission found: whether the artifact can be kept at all. */
interface Admission {
  overQuota: boolean;
  usage: Usage['principal'] | null;
  /** The store could not be asked: only the preview is fetched, and the artifact is FAILED with this error. */
  storeDown: SluiceError | null;
}

const KEEP_FINISHED_MS = 3600_000;

export class QueryService {
  readonly #records = new Map<string, QueryRecord>();
  readonly #config: Config;
  readonly #datasources: DatasourceRegistry;
  readonly #store: ArtifactStore;
  readonly #pool: WorkerPool;
  readonly #log: Logger;
  #submitted = 0;
  /** Running queries per principal, for the concurrency cap. */
  readonly #running = new Map<string, number>();

  readonly #shared: SharedQueries | null;
  readonly #startWatchers: ((started: StartedQuery) => void)[] = [];
  readonly #endWatchers: ((ended: EndedQuery) => void)[] = [];

  /** With `shared`, queries are published through the catalog so every replica can poll and cancel them. */
  constructor(config: Config, datasources: DatasourceRegistry, store: ArtifactStore, pool: WorkerPool, log: Logger, shared?: { catalog: SharedQueriesPort; replica: string }) {
    this.#config = config;
    this.#datasources = datasources;
    this.#store = store;
    this.#pool = pool;
    this.#log = log;
    this.#shared = shared === undefined ? null : new SharedQueries(shared.catalog, shared.replica, log, (id) => this.#records.get(id));
    this.#shared?.start();
  }

  /** The longest value a preview cell shows (SLUICE_PREVIEW_CELL_CHARS): the tools cut rows they read from an artifact the same way. */
  get previewCellChars(): number {
    return this.#config.previewCellChars;
  }

  /** Statements handed to the database since start (validation failures never count). */
  get submitted(): number {
    return this.#submitted;
  }

  /** `watch` hears of every query of this replica once it is admitted (never of one refused before it ran). */
  onStarted(watch: (started: StartedQuery) => void): void {
    this.#startWatchers.push(watch);
  }

  /** `watch` hears of every query of this replica once it has ended (never of one refused before it ran). */
  onEnded(watch: (ended: EndedQuery) => void): void {
    this.#endWatchers.push(watch);
  }

  /** Submits and waits per `wait`; a failed query throws its error, with the query id in the details. */
  async run(principal: Principal, request: QueryRequest, wait: WaitPolicy): Promise<QueryAnswer> {
    const record = await this.submit(principal, request);
    await record.settledWithin(wait.waitMs);
    if (record.state === 'RUNNING' && wait.onTimeout === 'cancel') {
      record.cancel();
      await record.settled;
    }
    return answerOf(record);
  }

  async submit(principal: Principal, request: QueryRequest): Promise<QueryRecord> {
    const plan = await planQuery(this.#config, this.#datasources, principal, request);
    // Made before admission, which with replicas records it in the catalog as it takes its slot.
    const origin: Origin = { requestId: currentRequestId() ?? null, route: currentRoute() ?? null };
    const record = new QueryRecord(`qry_${randomUUID().replaceAll('-', '')}`, principal.id, plan.origins);
    record.completeness = runningCompleteness(null, false, plan.origins);
    const admission = await this.#admit(principal, plan, record);
    this.#submitted++;
    this.#remember(record);
    this.#tell(this.#startWatchers, record, this.#started(record, plan, request.sql));
    record.done = this.#execute(record, plan, admission, request.sql, origin);
    // Other replicas can answer for it as soon as its id is handed out.
    await this.#shared?.publish(record);
    return record;
  }

  /** A query's answer, waiting up to `waitMs` for it to end, whichever replica runs it. */
  async poll(principal: Principal, id: string, waitMs: number): Promise<QueryAnswer> {
    const record = this.#records.get(id);
    if (record !== undefined && record.principal === principal.id) {
      if (waitMs > 0) await record.settledWithin(waitMs);
      return answerOf(record);
    }
    return (await this.#shared?.poll(principal.id, id, waitMs)) ?? notFound(id);
  }

  /** Cancels a query (on the database too), whichever replica runs it, and answers its state after up to `waitMs`. */
  async cancel(principal: Principal, id: string, waitMs: number): Promise<QueryAnswer> {
    const record = this.#records.get(id);
    if (record !== undefined && record.principal === principal.id) {
      record.cancel();
      await record.settledWithin(waitMs);
      return answerOf(record);
    }
    return (await this.#shared?.cancel(principal.id, id, waitMs)) ?? notFound(id);
  }

  /** Cancels every running query (on the database too) and waits, up to `ms`, for them to end. */
  async cancelAll(ms = 5_000): Promise<void> {
    this.#shared?.stop();
    const running = [...this.#records.values()].filter((r) => r.state === 'RUNNING');
    for (const record of running) record.cancel();
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([Promise.all(running.map((r) => r.settled)), new Promise((r) => (timer = setTimeout(r, ms)))]);
    clearTimeout(timer);
  }

  /**
   * The concurrency cap, then the quota. With replicas the cap is counted over all of them and the
   * slot is taken last, once nothing else can refuse the query, so a refusal never leaves a slot taken.
   */
  async #admit(principal: Principal, plan: Plan, record: QueryRecord): Promise<Admission> {
    if (this.#shared === null) this.#checkCap(principal.id, this.#running.get(principal.id) ?? 0);
    const admission = await this.#quotaOf(principal, plan);
    if (this.#shared !== null) {
      const shared = await this.#shared.admit(record, this.#config.maxConcurrentQueries);
      // The catalog could not be asked: this replica's own count is all there is to go by.
      if (!shared?.admitted) this.#checkCap(principal.id, shared?.running ?? this.#running.get(principal.id) ?? 0);
    }
    return admission;
  }

  #checkCap(principal: string, running: number): void {
    if (running >= this.#config.maxConcurrentQueries) {
      throw new SluiceError('RATE_LIMITED', `${principal} already has ${running} queries running (the limit is ${this.#config.maxConcurrentQueries}); wait for one to finish or cancel one.`, {
        retryAfterSeconds: 1,
      });
    }
  }

  async #quotaOf(principal: Principal, plan: Plan): Promise<Admission> {
    if (plan.materialize === 'never') return { overQuota: false, usage: null, storeDown: null };
    try {
      // Already at the quota: fetch only the preview, and say why there is no artifact.
      const usage = (await this.#store.usage(principal.id)).principal;
      return { overQuota: usage.logicalBytes >= usage.quotaBytes, usage, storeDown: null };
    } catch (error) {
      const failure = toSluiceError(error);
      if (failure.code !== 'STORAGE_UNAVAILABLE') throw failure;
      return { overQuota: false, usage: null, storeDown: failure };
    }
  }

  async #execute(record: QueryRecord, plan: Plan, admission: Admission, sql: string, origin: Origin): Promise<void> {
    const abort = new AbortController();
    record.onCancel(() => abort.abort(new SluiceError('QUERY_CANCELLED', 'The query was cancelled.')));
    let release: (() => void) | null = null;
    let staging: Staging | null = null;
    // Whatever was staged and not committed goes before the query is seen to end, so a caller
    // that sees the end never sees leftovers.
    const discardStaging = async () => {
      await staging?.abort().catch((error: unknown) => this.#log.error(`query ${record.id}: its staged files could not be removed:`, error));
    };
    try {
      release = await plan.datasource.limiter.acquire(abort.signal);
      // The preview is read from the export's first part, so even a preview-only export stages.
      staging = await this.#store.begin();
      const keep = !admission.overQuota && admission.storeDown === null;
      const { statement, params, previewRows, limits, origins } = plan;
      const materialize = keep ? plan.materialize : 'never';
      const task = this.#pool.run(
        {
          type: 'export',
          datasource: { kind: plan.datasource.kind, url: plan.datasource.url },
          // Reading only the preview, the row cap still holds: every engine fetches at most the smaller, plus one.
          request: {
            sql: statement.sql,
            kind: statement.kind,
            params,
            previewRows: materialize === 'never' ? Math.min(previewRows, limits.maxRows) : previewRows,
            previewBytes: this.#config.previewBytes,
            previewCellChars: this.#config.previewCellChars,
            materialize,
            limits,
            stagingDir: staging.scratchDir,
            scope: plan.scope,
          },
        },
        (event) => {
          if (event.type === 'part') {
            // Kept parts start going to the store while the export goes on.
            if (keep) staging?.stagePart(event.part, event.hashedAt);
            return;
          }
          if (event.type === 'preview') {
            record.preview = { columns: event.preview.columns, rows: event.preview.rows, cutCells: event.preview.cutCells };
            record.completeness = runningCompleteness(event.preview.rows.length, event.preview.complete, origins, event.preview.bounded);
          } else {
            record.progress = { rowsWritten: event.rows, bytesWritten: event.bytes };
          }
          record.changed();
        },
      );
      record.onCancel(() => task.cancel());
      const result = await task.result;
      record.completeness = finalCompleteness(result, origins);
      record.progress = { rowsWritten: result.rows, bytesWritten: result.bytes };
      record.artifact = await this.#decideArtifact(result, staging, plan, admission);
      // A commit removed the staging itself; anything else leaves it to discard.
      if (result.parts === null || result.storageFailure !== null || admission.storeDown !== null) await discardStaging();
      record.finish('SUCCEEDED');
    } catch (error) {
      await discardStaging();
      const failure = toSluiceError(error, 'The query failed unexpectedly.');
      if (failure.code === 'QUERY_CANCELLED') {
        record.artifact = { decision: 'CANCELLED', reason: 'QUERY_CANCELLED', message: 'The query was cancelled; nothing was kept.' };
        record.finish('CANCELLED');
      } else {
        if (failure.code === 'INTERNAL') this.#log.error(`query ${record.id} failed:`, error);
        // Told by the code that built the statement when it knows what the failure means; placed in the sent text otherwise.
        const explained = plan.explainFailure?.(failure) ?? null;
        record.artifact = { decision: 'FAILED', reason: (explained ?? failure).code, message: (explained ?? failure).message };
        record.fail(explained ?? inSentText(failure, plan.statement.offset));
      }
    } finally {
      release?.();
      this.#tellEnded(record, plan, sql, origin);
    }
  }

  #started(record: QueryRecord, plan: Plan, sql: string): StartedQuery {
    return { queryId: record.id, principal: record.principal, datasource: plan.datasource.id, sql, submittedAt: new Date(record.startedAt).toISOString() };
  }

  #tellEnded(record: QueryRecord, plan: Plan, sql: string, origin: Origin): void {
    if (record.state === 'RUNNING') return;
    const finishedAt = record.finishedAt ?? Date.now();
    const ended: EndedQuery = {
      ...this.#started(record, plan, sql),
      requestId: origin.requestId,
      route: origin.route,
      state: record.state,
      errorCode: record.error?.code ?? null,
      rows: record.progress.rowsWritten,
      bytes: record.progress.bytesWritten,
      durationMs: finishedAt - record.startedAt,
      finishedAt: new Date(finishedAt).toISOString(),
      artifactId: record.artifact?.decision === 'CREATED' ? (record.artifact.id ?? null) : null,
    };
    this.#tell(this.#endWatchers, record, ended);
  }

  #tell<T>(watchers: ((event: T) => void)[], record: QueryRecord, event: T): void {
    for (const watch of watchers) {
      try {
        watch(event);
      } catch (error) {
        this.#log.error(`query ${record.id}: a watcher of its start or end failed:`, error);
      }
    }
  }

  /** What becomes of the export's parts: committed as an artifact, or why not. */
  async #decideArtifact(result: ExportResult, staging: Staging | null, plan: Plan, admission: Admission): Promise<ArtifactDecision> {
    if (result.storageFailure !== null) return { decision: 'FAILED', reason: 'STORAGE_FULL', message: result.storageFailure };
    const wanted = !result.completeInPreview || plan.materialize === 'always';
    if (admission.storeDown !== null && wanted) return storeFailed(admission.storeDown);
    if (result.parts === null || staging === null) {
      const { overQuota, usage } = admission;
      return overQuota && wanted && usage !== null
        ? { decision: 'DENIED', reason: 'QUOTA_EXCEEDED', message: `${plan.owner.principal} is at its artifact quota (${usage.logicalBytes} of ${usage.quotaBytes} bytes); delete artifacts or retire a session.` }
        : skippedDecision(plan.materialize);
    }
    let outcome;
    try {
      outcome = await staging.commit(
      plan.owner,
      {
        parts: result.parts,
        columns: result.columns,
        rowCount: result.rows,
        coverage: result.cappedBy === null ? 'COMPLETE' : 'PREFIX',
        boundedBy: result.cappedBy,
        sql: plan.statement.sql,
        datasource: plan.datasource.id,
      },
      this.#config.artifactTtlS,
    );
    } catch (error) {
      const failure = toSluiceError(error);
      if (failure.code !== 'STORAGE_UNAVAILABLE') throw failure;
      return storeFailed(failure);
    }
    if (outcome.decision !== 'CREATED') return { decision: 'DENIED', reason: outcome.reason, message: outcome.message };
    const a = outcome.artifact;
    return { decision: 'CREATED', coverage: a.coverage, id: a.id, format: 'parquet', rowCount: a.rowCount, sizeBytes: a.sizeBytes, expiresAt: a.expiresAt };
  }

  #remember(record: QueryRecord): void {
    this.#records.set(record.id, record);
    this.#running.set(record.principal, (this.#running.get(record.principal) ?? 0) + 1);
    void record.settled.then(() => {
      const left = (this.#running.get(record.principal) ?? 1) - 1;
      if (left === 0) this.#running.delete(record.principal);
      else this.#running.set(record.principal, left);
      setTimeout(() => this.#records.delete(record.id), KEEP_FINISHED_MS).unref?.();
    });
  }
}

function notFound(id: string): never {
  throw new SluiceError('NOT_FOUND', `No query "${id}" exists for this caller (finished queries are kept for an hour).`);
}

function storeFailed(error: SluiceError): ArtifactDecision {
  return { decision: 'FAILED', reason: 'STORAGE_UNAVAILABLE', message: `The result could not be stored: ${error.message}` };
}

/**
 * The database reports an error position in the statement it ran, which is
 * the sent text without leading whitespace and comments; the caller counts
 * in the text it sent.
 */
function inSentText(error: SluiceError, offset: number): SluiceError {
  const position = error.details?.position;
  if (offset === 0 || typeof position !== 'number') return error;
  return error.withDetails({ position: position + offset });
}
