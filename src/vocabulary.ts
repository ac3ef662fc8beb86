/**
 * The contract's closed vocabularies, each written once. Zod schemas (and so
 * the OpenAPI document), TypeScript types and messages all derive from these
 * arrays; adding a value here is the one change that reaches every surface.
 */

export const QUERY_STATES = ['RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'] as const;
export type QueryState = (typeof QUERY_STATES)[number];

export const COMPLETENESS_STATUSES = ['COMPLETE', 'INCOMPLETE', 'UNKNOWN'] as const;
export type CompletenessStatus = (typeof COMPLETENESS_STATUSES)[number];

/** The limits that can stop a result short (`completeness.boundedBy`). */
export const CAPS = ['previewRows', 'maxRows', 'maxBytes', 'maxDuration'] as const;
export type Cap = (typeof CAPS)[number];

/**
 * What can bound a query's preview (`completeness.boundedBy`): the caps, and
 * the preview's own size bound (SLUICE_PREVIEW_BYTES, with its cell cut
 * SLUICE_PREVIEW_CELL_CHARS), which is no cap on the result.
 */
export const PREVIEW_BOUNDS = [...CAPS, 'previewBytes'] as const;
export type PreviewBound = (typeof PREVIEW_BOUNDS)[number];

/** What can bound a schema listing (its `completeness.boundedBy`): the listing's `limit`. */
export const LISTING_BOUNDS = ['limit'] as const;
export type ListingBound = (typeof LISTING_BOUNDS)[number];

/** Who set the limit that fired: the server's configuration or the request. */
export const LIMIT_SOURCES = ['server', 'request'] as const;
export type LimitSource = (typeof LIMIT_SOURCES)[number];

export const DECISIONS = ['CREATED', 'SKIPPED', 'DENIED', 'FAILED', 'CANCELLED'] as const;
export type Decision = (typeof DECISIONS)[number];

export const COVERAGES = ['COMPLETE', 'PREFIX'] as const;
export type Coverage = (typeof COVERAGES)[number];

export const MATERIALIZE_MODES = ['auto', 'always', 'never'] as const;
export type Materialize = (typeof MATERIALIZE_MODES)[number];

export const ARTIFACT_STATES = ['WRITING', 'COMMITTED', 'EXPIRED', 'DELETED'] as const;
export type ArtifactState = (typeof ARTIFACT_STATES)[number];

export const FILTER_OPS = ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'not_in', 'between', 'is_null', 'is_not_null', 'contains', 'starts_with'] as const;
export type FilterOp = (typeof FILTER_OPS)[number];
/** Ops that take no value, and ops whose value is a list (`between` a [low, high] pair). */
export const VALUELESS_FILTER_OPS = ['is_null', 'is_not_null'] as const satisfies readonly FilterOp[];
export const LIST_FILTER_OPS = ['in', 'not_in', 'between'] as const satisfies readonly FilterOp[];
export type ValuelessFilterOp = (typeof VALUELESS_FILTER_OPS)[number];
export type ListFilterOp = (typeof LIST_FILTER_OPS)[number];

export function isValuelessFilterOp(op: string): op is ValuelessFilterOp {
  return (VALUELESS_FILTER_OPS as readonly string[]).includes(op);
}

export function isListFilterOp(op: string): op is ListFilterOp {
  return (LIST_FILTER_OPS as readonly string[]).includes(op);
}

/** Aggregates over a stored result, and the metric types of the semantic layer. */
export const AGGREGATE_FNS = ['count', 'count_distinct', 'sum', 'avg', 'min', 'max'] as const;
export type AggregateFn = (typeof AGGREGATE_FNS)[number];

/** What a semantic field is: grouped by (a dimension) or aggregated (a metric). */
export const FIELD_KINDS = ['dimension', 'metric'] as const;
export type FieldKind = (typeof FIELD_KINDS)[number];

/** What a column of a semantic result is: a dimension, a metric, or a merge's table calculation. */
export const RESULT_FIELD_KINDS = [...FIELD_KINDS, 'calculation'] as const;
export type ResultFieldKind = (typeof RESULT_FIELD_KINDS)[number];

/**
 * The kinds of a semantic intent's validation errors (`details.errors[].kind`
 * of SEMANTIC_VALIDATION_ERROR): every one an intent has is reported at once.
 */
export const SEMANTIC_ERROR_KINDS = [
  'unknown_field', // a field id that does not exist in its explore, or belongs to another explore
  'wrong_kind', // a metric listed as a dimension, or a dimension as a metric
  'empty_query', // a metric query selecting nothing
  'bad_filter', // a filter value of the wrong type or arity
  'missing_filter', // an explore's required filter is absent
  'missing_parameter', // an explore's required parameter is absent
  'bad_sort', // a sort on a column the result does not have
  'merge_shape', // not exactly two sources, a source with its own sorts or limit, no join key
  'datasource_mismatch', // the sources' explores are on different datasources
  'join_key', // a join key that is not one of its source's dimensions
  'join_type_mismatch', // join keys of different types
  'join_grain_mismatch', // join keys of different time grains
  'fan_out', // a source dimension that is not a join key, so rows would repeat
  'bad_calculation', // a table calculation's name or expression is refused
  'source_row_cap', // a merge source returns more than SLUICE_MERGE_SOURCE_ROWS rows
] as const;
export type SemanticErrorKind = (typeof SEMANTIC_ERROR_KINDS)[number];

/** The charts a saved visualization can draw. */
export const CHART_TYPES = ['table', 'bar', 'line', 'area', 'scatter'] as const;
export type ChartType = (typeof CHART_TYPES)[number];

export const SORT_DIRECTIONS = ['asc', 'desc'] as const;
export type SortDirection = (typeof SORT_DIRECTIONS)[number];

export const DOWNLOAD_FORMATS = ['parquet', 'csv', 'jsonl'] as const;
export type DownloadFormat = (typeof DOWNLOAD_FORMATS)[number];

export const ROLES = ['reader', 'analyst', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** How a caller signed in: a configured token, or an identity provider's JWT. */
export const AUTH_KINDS = ['token', 'oidc'] as const;
export type AuthKind = (typeof AUTH_KINDS)[number];

/** What a relation of a datasource is: pg_class.relkind, spelled out. */
export const TABLE_KINDS = ['table', 'view', 'materialized_view', 'foreign_table', 'partitioned_table'] as const;
export type TableKind = (typeof TABLE_KINDS)[number];

/** Who speaks in a chat history the client sends. */
export const CHAT_ROLES = ['user', 'assistant', 'system'] as const;
export type ChatRole = (typeof CHAT_ROLES)[number];

/** How chat labels the SQL it finds in a reply (by PostgreSQL's own parser). */
export const SQL_BLOCK_KINDS = ['select', 'dml', 'ddl', 'other'] as const;
export type SqlBlockKind = (typeof SQL_BLOCK_KINDS)[number];

/** Why the agent stopped: it answered, used all its model calls, or ran out of time. */
export const AGENT_STOPS = ['answer', 'max_iters', 'timeout'] as const;
export type AgentStop = (typeof AGENT_STOPS)[number];

/** A step of the agent's transcript: a tool call or a model call. */
export const TRANSCRIPT_STEP_KINDS = ['tool', 'llm'] as const;
export type TranscriptStepKind = (typeof TRANSCRIPT_STEP_KINDS)[number];

/** The engines Sluice can read (a datasource's `kind`); a datasource URL's scheme names one. */
export const DATASOURCE_KINDS = ['postgres', 'mysql', 'sqlite', 'files'] as const;
export type DatasourceKind = (typeof DATASOURCE_KINDS)[number];

/** The URL schemes each kind reads (with the colon, as URL.protocol gives them). */
export const DATASOURCE_SCHEMES: Record<DatasourceKind, readonly string[]> = {
  postgres: ['postgres:', 'postgresql:'],
  mysql: ['mysql:', 'mariadb:'],
  sqlite: ['sqlite:'],
  files: ['file:'],
};

/** The SQL dialects datasources speak, as `GET /api/datasources` names them. */
export const DIALECT_NAMES = ['postgresql', 'mariadb', 'mysql', 'sqlite', 'duckdb'] as const;
export type DialectName = (typeof DIALECT_NAMES)[number];

/** Why a session bundle was refused on import: `details.reason` of its VALIDATION_ERROR. */
export const BUNDLE_REJECTIONS = [
  'NOT_A_TAR',
  'TRUNCATED',
  'MANIFEST_NOT_FIRST',
  'BAD_MANIFEST',
  'UNSUPPORTED_VERSION',
  'BAD_ENTRY',
  'EXTRA_PART',
  'DUPLICATE_PART',
  'MISSING_PART',
  'SIZE_MISMATCH',
  'HASH_MISMATCH',
  'UNREADABLE_PART',
] as const;
export type BundleRejection = (typeof BUNDLE_REJECTIONS)[number];

/** What a store check found wrong with one stored part. */
export const PART_PROBLEMS = ['missing', 'corrupt', 'orphaned'] as const;
export type PartProblem = (typeof PART_PROBLEMS)[number];
/** What an audit entry records (`action` of GET /api/admin/audit). */
export const AUDIT_ACTIONS = ['query', 'read', 'aggregate', 'download', 'delete', 'agent', 'chat', 'semantic', 'sign_in'] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * How an audited request ended: `ok`; `refused`, Sluice declined it before doing the work (the caller's
 * identity, rights, input or limits: every 4xx but the query's own outcomes); `failed`, the work was
 * attempted and did not complete (SQL_ERROR, QUERY_TIMEOUT, QUERY_CANCELLED, and every 5xx).
 */
export const AUDIT_OUTCOMES = ['ok', 'refused', 'failed'] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];
