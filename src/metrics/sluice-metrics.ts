/**
 * The series a Sluice server reports, in one prom-client Registry per
 * server (a process may run several, as tests do: none of them touches the
 * global registry). Recorders are called where things happen (an answered
 * request, an ended query, a model call); what the server already knows
 * (artifacts, queues, caches, collection) is read when Prometheus scrapes,
 * in scraped-metrics.ts. Labels are bounded by construction: route
 * templates, methods, statuses, configured datasource ids, states and
 * error codes; never an id, SQL, a token or a principal.
 */
import { Counter, Histogram, Registry } from 'prom-client';
import { addRuntimeMetrics } from './runtime-metrics.ts';

/** Seconds; from a cached page to a long export. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** How a query ended, as the query use-case reports it. */
export interface QueryEnd {
  /** A configured datasource id. */
  datasource: string;
  state: string;
  /** The contract's error code when it failed. */
  errorCode: string | null;
  rows: number;
  bytes: number;
}

/** One call to the model server: whether it answered, and the tokens it says it used. */
export interface ModelCall {
  outcome: 'ok' | 'error';
  promptTokens: number;
  completionTokens: number;
}

export class SluiceMetrics {
  readonly registry = new Registry();
  readonly #requests = new Counter({ name: 'sluice_http_requests_total', help: 'HTTP requests answered, by route template, method and status.', labelNames: ['route', 'method', 'status'], registers: [this.registry] });
  readonly #duration = new Histogram({
    name: 'sluice_http_request_duration_seconds',
    help: 'Time from a request to its answer (for streams, to the start of the answer), by route template, method and status.',
    labelNames: ['route', 'method', 'status'],
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  readonly #queries = new Counter({ name: 'sluice_queries_total', help: 'Queries ended, by datasource and final state (SUCCEEDED, FAILED, CANCELLED).', labelNames: ['datasource', 'state'], registers: [this.registry] });
  readonly #queryErrors = new Counter({ name: 'sluice_query_errors_total', help: 'Failed queries, by datasource and error code (DATASOURCE_UNAVAILABLE, QUERY_TIMEOUT, ...).', labelNames: ['datasource', 'code'], registers: [this.registry] });
  readonly #exportRows = new Counter({ name: 'sluice_export_rows_total', help: 'Rows queries read from their datasource into results.', labelNames: ['datasource'], registers: [this.registry] });
  readonly #exportBytes = new Counter({ name: 'sluice_export_bytes_total', help: 'Bytes queries read from their datasource, measured as CSV text (what SLUICE_MAX_BYTES caps).', labelNames: ['datasource'], registers: [this.registry] });
  readonly #aiRequests = new Counter({ name: 'sluice_ai_requests_total', help: 'Calls to the model server (chat, streamed chat, each agent step), by outcome.', labelNames: ['outcome'], registers: [this.registry] });
  readonly #aiTokens = new Counter({ name: 'sluice_ai_tokens_total', help: 'Tokens the model server reported using, by kind (prompt, completion).', labelNames: ['kind'], registers: [this.registry] });

  constructor() {
    addRuntimeMetrics(this.registry);
    // Present from the start, so rates and alerts have a series before the first event.
    for (const outcome of ['ok', 'error']) this.#aiRequests.inc({ outcome }, 0);
    for (const kind of ['prompt', 'completion']) this.#aiTokens.inc({ kind }, 0);
  }

  requestAnswered(route: string, method: string, status: number, seconds: number): void {
    const labels = { route, method: METHODS.has(method) ? method : 'OTHER', status: String(status) };
    this.#requests.inc(labels);
    this.#duration.observe(labels, seconds);
  }

  queryEnded(end: QueryEnd): void {
    const datasource = end.datasource;
    this.#queries.inc({ datasource, state: end.state });
    if (end.errorCode !== null) this.#queryErrors.inc({ datasource, code: end.errorCode });
    this.#exportRows.inc({ datasource }, end.rows);
    this.#exportBytes.inc({ datasource }, end.bytes);
  }

  modelCalled(call: ModelCall): void {
    this.#aiRequests.inc({ outcome: call.outcome });
    if (call.promptTokens > 0) this.#aiTokens.inc({ kind: 'prompt' }, call.promptTokens);
    if (call.completionTokens > 0) this.#aiTokens.inc({ kind: 'completion' }, call.completionTokens);
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The exposition text, with what is read at scrape time read now. */
  text(): Promise<string> {
    return this.registry.metrics();
  }
}
