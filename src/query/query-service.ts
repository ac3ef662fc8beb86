/**
 * Runs queries: checks the statement, works out the effective limits, waits
 * for the datasource's turn, hands the export to a worker, and turns what
 * comes back into the contract's state (preview, completeness, artifact).
 * Query state lives in memory for an hour after it ends; artifacts are what
 * lasts.
 */
import { randomUUID } from 'node:crypto';
import type { Config } from '../config.ts';
import { SluiceError } from '../errors.ts';
import type { Principal } from '../auth/principals.ts';
import type { ArtifactStore } from '../artifacts/types.ts';
import type { DatasourceRegistry } from '../datasources/registry.ts';
import type { ExportResult, Limits, Materialize } from '../export/export-types.ts';
import { checkReadOnly } from './sql-safety.ts';
import { finalCompleteness, runningCompleteness, skippedDecision, type LimitOrigins } from './completeness.ts';
import type { WorkerPool } from './worker-pool.ts';
import { QueryRecord } from './query-record.ts';

export interface QueryRequest {
  datasource?: string | undefined;
  sql: string;
  params?: unknown[] | undefined;
  previewRows?: number | undefined;
  materialize?: Materialize | undefined;
  limits?: { maxRows?: number | undefined; maxBytes?: number | undefined; maxDurationMs?: number | undefined } | undefined;
  sessionId?: string | undefined;
}

const KEEP_FINISHED_MS = 3600_000;

export class QueryService {
  readonly #records = new Map<string, QueryRecord>();
  readonly #config: Config;
  readonly #datasources: DatasourceRegistry;
  readonly #store: ArtifactStore;
  readonly #pool: WorkerPool;
  #submitted = 0;
  /** Running queries per principal, for the concurrency cap. */
  readonly #running = new Map<string, number>();

  constructor(config: Config, datasources: DatasourceRegistry, store: ArtifactStore, pool: WorkerPool) {
    this.#config = config;
    this.#datasources = datasources;
    this.#store = store;
    this.#pool = pool;
  }

  /** Statements handed to the database since start (validation failures never count). */
  get submitted(): number {
    return this.#submitted;
  }

  async submit(principal: Principal, request: QueryRequest): Promise<QueryRecord> {
    const datasource = this.#datasources.get(principal, request.datasource ?? 'default');
    const checked = await checkReadOnly(request.sql);
    const params = request.params ?? [];
    if (checked.paramCount > params.length) {
      throw new SluiceError('VALIDATION_ERROR', `The statement uses $${checked.paramCount} but "params" has ${params.length} value(s).`);
    }
    const server = this.#config;
    const asked = request.limits ?? {};
    const limits: Limits = {
      maxRows: Math.min(asked.maxRows ?? Infinity, server.maxRows),
      maxBytes: Math.min(asked.maxBytes ?? Infinity, server.maxBytes),
      maxDurationMs: Math.min(asked.maxDurationMs ?? Infinity, server.maxDurationMs),
    };
    const previewRows = request.previewRows ?? server.previewRows;
    const origins: LimitOrigins = {
      previewRows: request.previewRows === undefined ? 'server' : 'request',
      maxRows: asked.maxRows !== undefined && asked.maxRows < server.maxRows ? 'request' : 'server',
      maxBytes: asked.maxBytes !== undefined && asked.maxBytes < server.maxBytes ? 'request' : 'server',
      maxDuration: asked.maxDurationMs !== undefined && asked.maxDurationMs < server.maxDurationMs ? 'request' : 'server',
    };
    const materialize = request.materialize ?? 'auto';
    // Already at the quota: fetch only the preview, and say why there is no artifact.
    const usage = this.#store.usage(principal.id).principal;
    const overQuota = materialize !== 'never' && usage.logicalBytes >= usage.quotaBytes;
    const running = this.#running.get(principal.id) ?? 0;
    if (running >= this.#config.maxConcurrentQueries) {
      throw new SluiceError('RATE_LIMITED', `${principal.id} already has ${running} queries running (the limit is ${this.#config.maxConcurrentQueries}); wait for one to finish or cancel one.`, {
        retryAfterSeconds: 1,
      });
    }
    this.#submitted++;
    const record = new QueryRecord(`qry_${randomUUID().replaceAll('-', '')}`, principal.id, origins);
    record.completeness = runningCompleteness(null, false, origins);
    this.#remember(record);
    const owner = { principal: principal.id, sessionId: request.sessionId ?? 'default' };
    record.done = (async () => {
      const abort = new AbortController();
      record.onCancel(() => abort.abort(new SluiceError('QUERY_CANCELLED', 'The query was cancelled.')));
      let release: (() => void) | null = null;
      let stagingDir: string | null = null;
      try {
        release = await datasource.limiter.acquire(abort.signal);
        stagingDir = this.#store.stagingDir();
        const task = this.#pool.run<ExportResult>(
          {
            type: 'export',
            datasourceUrl: datasource.url,
            request: { sql: checked.sql, kind: checked.kind, params, previewRows, materialize: overQuota ? 'never' : materialize, limits, stagingDir },
          },
          (event) => {
            if (event.type === 'preview') {
              record.preview = { columns: event.preview.columns, rows: event.preview.rows };
              record.completeness = runningCompleteness(event.preview.rows.length, event.preview.complete, origins);
            } else {
              record.progress = { rowsWritten: event.rows, bytesWritten: event.bytes };
            }
          },
        );
        record.onCancel(() => task.cancel());
        const result = await task.result;
        record.completeness = finalCompleteness(result, previewRows, origins);
        record.progress = { rowsWritten: result.rows, bytesWritten: result.bytes };
        if (result.storageFailure !== null) {
          this.#store.abort(stagingDir);
          record.artifact = { decision: 'FAILED', reason: 'STORAGE_FULL', message: result.storageFailure };
        } else if (result.parts === null) {
          this.#store.abort(stagingDir);
          record.artifact =
            overQuota && (!result.completeInPreview || materialize === 'always')
              ? { decision: 'DENIED', reason: 'QUOTA_EXCEEDED', message: `${principal.id} is at its artifact quota (${usage.logicalBytes} of ${usage.quotaBytes} bytes); delete artifacts or retire a session.` }
              : skippedDecision(materialize);
        } else {
          const outcome = this.#store.commit(
            owner,
            {
              stagingDir,
              parts: result.parts,
              columns: result.columns,
              rowCount: result.rows,
              coverage: result.cappedBy === null ? 'COMPLETE' : 'PREFIX',
              boundedBy: result.cappedBy,
              sql: checked.sql,
              datasource: datasource.id,
            },
            this.#config.artifactTtlS,
          );
          record.artifact =
            outcome.decision === 'CREATED'
              ? {
                  decision: 'CREATED',
                  coverage: outcome.artifact.coverage,
                  id: outcome.artifact.id,
                  format: 'parquet',
                  rowCount: outcome.artifact.rowCount,
                  sizeBytes: outcome.artifact.sizeBytes,
                  expiresAt: outcome.artifact.expiresAt,
                }
              : { decision: 'DENIED', reason: outcome.reason, message: outcome.message };
        }
        record.finish('SUCCEEDED');
      } catch (error) {
        if (stagingDir !== null) this.#store.abort(stagingDir);
        const failure = error instanceof SluiceError ? error : new SluiceError('INTERNAL', 'The query failed unexpectedly.');
        if (failure.code === 'QUERY_CANCELLED') {
          record.artifact = { decision: 'CANCELLED', reason: 'QUERY_CANCELLED', message: 'The query was cancelled; nothing was kept.' };
          record.finish('CANCELLED');
        } else {
          if (failure.code === 'INTERNAL') console.error(`query ${record.id} failed:`, error);
          record.artifact = { decision: 'FAILED', reason: failure.code, message: failure.message };
          record.fail(inSentText(failure, checked.offset));
        }
      } finally {
        release?.();
      }
    })();
    return record;
  }

  get(principal: Principal, id: string): QueryRecord {
    const record = this.#records.get(id);
    if (record === undefined || record.principal !== principal.id) {
      throw new SluiceError('NOT_FOUND', `No query "${id}" exists for this caller (finished queries are kept for an hour).`);
    }
    return record;
  }

  /** Cancels every running query (on the database too) and waits, up to `ms`, for them to end. */
  async cancelAll(ms = 5_000): Promise<void> {
    const running = [...this.#records.values()].filter((r) => r.state === 'RUNNING');
    for (const record of running) record.cancel();
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([Promise.all(running.map((r) => r.settled)), new Promise((r) => (timer = setTimeout(r, ms)))]);
    clearTimeout(timer);
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

/**
 * The database reports an error position in the statement it ran, which is
 * the sent text without leading whitespace and comments; the caller counts
 * in the text it sent.
 */
function inSentText(error: SluiceError, offset: number): SluiceError {
  const position = error.details?.position;
  if (offset === 0 || typeof position !== 'number') return error;
  return new SluiceError(error.code, error.message, { ...error.details, position: position + offset }, error.statusOverride);
}
