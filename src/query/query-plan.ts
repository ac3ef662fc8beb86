/**
 * The first step of a query: the statement checked (read-only, its
 * parameters given), the datasource the caller may use, and the limits in
 * force, each with who set it: a request can only lower the server's caps.
 * Nothing runs and nothing is counted until a plan exists.
 */
import type { Config } from '../config.ts';
import { SluiceError } from '../errors.ts';
import type { Principal } from '../auth/principals.ts';
import type { Datasource, DatasourceRegistry } from '../datasources/registry.ts';
import type { LimitOrigins } from './completeness.ts';
import type { Limits, Materialize } from '../worker/export-types.ts';
import type { CheckedStatement } from '../datasources/driver.ts';
import { scopeFor, type ScopeSetting } from '../datasources/claim-scope.ts';

export interface QueryRequest {
  datasource?: string | undefined;
  sql: string;
  params?: unknown[] | undefined;
  previewRows?: number | undefined;
  materialize?: Materialize | undefined;
  limits?: { maxRows?: number | undefined; maxBytes?: number | undefined; maxDurationMs?: number | undefined } | undefined;
  sessionId?: string | undefined;
  /**
   * A lower row cap Sluice itself sets for this call (never from an HTTP body):
   * the tools' read of at most 50 rows. Named as the server's in completeness.
   */
  serverMaxRows?: number | undefined;
  /**
   * What a failure of this statement means to the code that built it (never
   * from an HTTP body): the semantic layer's merge fails itself when a source
   * is over its row cap, which is a validation error however late it comes.
   * Null leaves the failure as it is.
   */
  explainFailure?: ((failure: SluiceError) => SluiceError | null) | undefined;
}

/** A checked statement with everything the export needs, before anything runs. */
export interface Plan {
  datasource: Datasource;
  statement: CheckedStatement;
  params: unknown[];
  limits: Limits;
  origins: LimitOrigins;
  previewRows: number;
  materialize: Materialize;
  owner: { principal: string; sessionId: string };
  /** The settings the caller's claims give the query's transaction (row-level scope); empty when the datasource has none. */
  scope: ScopeSetting[];
  explainFailure: ((failure: SluiceError) => SluiceError | null) | undefined;
}

export async function planQuery(config: Config, datasources: DatasourceRegistry, principal: Principal, request: QueryRequest): Promise<Plan> {
  const datasource = datasources.get(principal, request.datasource ?? 'default');
  const scope = scopeFor(datasource, principal);
  const statement = await datasource.driver.checkStatement(request.sql);
  const params = request.params ?? [];
  if (statement.paramCount > params.length) {
    throw new SluiceError('VALIDATION_ERROR', `The statement uses $${statement.paramCount} but "params" has ${params.length} value(s).`);
  }
  const server = { ...config, maxRows: Math.min(config.maxRows, request.serverMaxRows ?? Infinity) };
  const asked = request.limits ?? {};
  // A request can only lower the server's caps; the origin says who set the one in force.
  const lower = (mine: number | undefined, theirs: number) => (mine !== undefined && mine < theirs ? 'request' : 'server');
  return {
    datasource,
    statement,
    params,
    limits: {
      maxRows: Math.min(asked.maxRows ?? Infinity, server.maxRows),
      maxBytes: Math.min(asked.maxBytes ?? Infinity, server.maxBytes),
      maxDurationMs: Math.min(asked.maxDurationMs ?? Infinity, server.maxDurationMs),
    },
    origins: {
      previewRows: request.previewRows === undefined ? 'server' : 'request',
      // The preview's size bounds are the server's alone.
      previewBytes: 'server',
      maxRows: lower(asked.maxRows, server.maxRows),
      maxBytes: lower(asked.maxBytes, server.maxBytes),
      maxDuration: lower(asked.maxDurationMs, server.maxDurationMs),
    },
    previewRows: request.previewRows ?? server.previewRows,
    materialize: request.materialize ?? 'auto',
    owner: { principal: principal.id, sessionId: request.sessionId ?? 'default' },
    scope,
    explainFailure: request.explainFailure,
  };
}
