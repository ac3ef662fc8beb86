/**
 * What each kind of work behind a route can fail with, as the error codes
 * (and status outcomes) routes pass to `errorResponses`. A route lists the
 * kinds of work it does; the codes of each kind are written here once, so
 * every route that runs a query, reads an artifact or resolves a datasource
 * declares the same failures.
 */
import { diskFullError, type ErrorCode } from '../../errors.ts';
import { SEMANTIC_ERROR_KINDS } from '../../vocabulary.ts';
import type { ErrorOutcome } from './envelope.ts';

type Failure = ErrorCode | ErrorOutcome;

/** The embedded datasource still seeding its sample data: the registry answers INTERNAL with a retryable 503. */
export const DATASOURCE_STARTING: ErrorOutcome = {
  code: 'INTERNAL',
  status: 503,
  description: 'The datasource is still starting (the embedded database seeds its sample data on first start); retry in a few seconds.',
};

const DISK_FULL = diskFullError();

/** The disk filled before the export sent any of the result, or under a download being written: INTERNAL with 507. */
export const STORAGE_FULL: ErrorOutcome = { code: DISK_FULL.code, status: DISK_FULL.status, description: DISK_FULL.message };

/** Naming a datasource: one the caller may not use is as absent as one that does not exist. */
export const DATASOURCE_FAILURES: readonly Failure[] = ['NOT_FOUND', DATASOURCE_STARTING];

/** Asking the database about its schema. */
export const SCHEMA_FAILURES: readonly Failure[] = [...DATASOURCE_FAILURES, 'SQL_ERROR'];

/** The artifact catalog and the artifact bytes, wherever they live. */
export const STORE_FAILURES: readonly Failure[] = ['STORAGE_UNAVAILABLE'];

/** One artifact of the caller's: found, not expired, its bytes intact. */
export const ARTIFACT_FAILURES: readonly Failure[] = ['NOT_FOUND', 'ARTIFACT_EXPIRED', ...STORE_FAILURES];

/** Reading an artifact's bytes (pages, aggregates, downloads): they are checked against their hash. */
export const ARTIFACT_BYTES_FAILURES: readonly Failure[] = [...ARTIFACT_FAILURES, 'ARTIFACT_CORRUPT'];

/**
 * Running a query through the query use-case: a failed query answers with
 * its own error, from the parser, the database, the export or the store.
 */
export const QUERY_FAILURES: readonly Failure[] = [
  ...DATASOURCE_FAILURES,
  ...STORE_FAILURES,
  'READ_ONLY_VIOLATION',
  'SQL_ERROR',
  'QUERY_TIMEOUT',
  'QUERY_CANCELLED',
  STORAGE_FULL,
];

/** An invalid semantic intent, with every error it has listed by kind. */
export const SEMANTIC_VALIDATION: ErrorOutcome = {
  code: 'SEMANTIC_VALIDATION_ERROR',
  status: 400,
  description: `The intent is invalid and nothing ran. \`details.errors: [{"kind", "source"?, "field"?, "message"}]\` lists every error at once; \`details.source\`, \`details.field\` and the message are the first one's. Kinds: ${SEMANTIC_ERROR_KINDS.map((k) => `\`${k}\``).join(', ')} (\`source_row_cap\`: a merge source has more rows than SLUICE_MERGE_SOURCE_ROWS).`,
};

/** A semantic intent: resolved against the caller's explores, compiled, then run as a query. */
export const SEMANTIC_QUERY_FAILURES: readonly Failure[] = [SEMANTIC_VALIDATION, ...QUERY_FAILURES];
