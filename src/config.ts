/**
 * Settings, read once from the environment. Every variable of the contract is
 * parsed here and nowhere else, so a bad value stops start-up with a message
 * that names the variable instead of failing later at a distance.
 */
import { z } from 'zod';
import { DATASOURCE_KINDS, DATASOURCE_SCHEMES, ROLES, type Role, type DatasourceKind } from './vocabulary.ts';

const GIB = 1024 * 1024 * 1024;

/**
 * A custom PostgreSQL setting ("prefix.name"): the dot keeps every built-in
 * setting (role, search_path, statement_timeout...) out of a claim's reach.
 */
const SCOPE_SETTING = /^[A-Za-z_][A-Za-z0-9_]{0,62}\.[A-Za-z_][A-Za-z0-9_]{0,62}$/;
/** The most settings one datasource may take from claims. */
const MAX_CLAIM_SETTINGS = 16;
const scopeClaimName = z
  .string()
  .min(1)
  .max(200)
  .refine((name) => !/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(name), 'a claim name holds no control characters');

const datasourceSchema = z.object({
  id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  url: z.string().min(1),
  /** Without it the URL's scheme decides; with it the scheme must be one of that kind's. */
  kind: z.enum(DATASOURCE_KINDS).optional(),
  description: z.string().optional(),
  /** PostgreSQL setting name -> the caller's claim whose value it takes in each query's transaction (row-level scope). */
  claimSettings: z
    .record(
      z.string().regex(SCOPE_SETTING, 'a setting name must be a custom setting "prefix.name" (letters, digits and underscores, each part at most 63)'),
      scopeClaimName,
    )
    .refine((settings) => Object.keys(settings).length >= 1 && Object.keys(settings).length <= MAX_CLAIM_SETTINGS, `claimSettings names 1 to ${MAX_CLAIM_SETTINGS} settings`)
    .optional(),
})
  // A key this server does not know (a misspelling) stops start-up rather than being dropped.
  .strict();

/** A static token's principal. An OIDC principal's prefix holds a character outside this set, so the two never meet. */
const TOKEN_PRINCIPAL = /^[A-Za-z0-9_.@-]{1,128}$/;

const tokenSchema = z.object({
  token: z.string().min(8),
  principal: z.string().regex(TOKEN_PRINCIPAL),
  roles: z.array(z.enum(ROLES)).optional(),
  datasources: z.array(z.string()).optional(),
});

export type DatasourceSetting = z.infer<typeof datasourceSchema>;
export type TokenSetting = z.infer<typeof tokenSchema>;

/** Where artifact bytes live: a directory (unset: `<data dir>/artifacts`) or a bucket and key prefix. */
export type ArtifactBytesSetting = { kind: 'file'; dir: string | undefined } | { kind: 's3'; bucket: string; prefix: string };

/** An S3-compatible service; credentials come from the SDK's standard chain, never from here. */
export interface S3Setting {
  endpoint: string | undefined;
  region: string;
  forcePathStyle: boolean;
}

/** Sign-in with an identity provider's JWTs, beside the static tokens. */
export interface OidcSetting {
  /** Compared verbatim with the token's `iss` and the discovery document's `issuer`. */
  issuer: string;
  audience: string;
  /** The claim names that hold the principal, its roles and its datasources. */
  claims: { principal: string; roles: string; datasources: string };
  principalPrefix: string;
  defaultRoles: Role[];
  /** The least time between two fetches of the key set when a token names a key the cached set lacks. */
  jwksCooldownMs: number;
}

/** Where the server listens, what it serves from, and who may call it. */
export interface ServerSettings {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  datasources: DatasourceSetting[];
  tokens: TokenSetting[] | undefined;
  oidc: OidcSetting | undefined;
  bodyLimitBytes: number;
  /** The largest session bundle POST /api/sessions/{id}/import takes (its own limit: bundles hold whole artifacts). */
  importMaxBytes: number;
  /** Requests a principal may make per minute (a token bucket, so short bursts up to this many are fine). */
  rateLimitPerMinute: number;
  modelsDir: string;
  /** The token GET /metrics asks for; unset: /metrics needs none. */
  metricsToken: string | undefined;
  /** Days an audit entry is kept before retention rounds purge it. */
  auditRetentionDays: number;
}

/** The caps every query runs under, and the threads that run them. */
export interface QuerySettings {
  previewRows: number;
  /** The most bytes of JSON a preview's rows take: the preview ends at the last whole row within it. */
  previewBytes: number;
  /** The longest value a preview cell shows, in characters; a longer one is cut there (and listed in cutCells). */
  previewCellChars: number;
  maxRows: number;
  maxBytes: number;
  maxDurationMs: number;
  /** Queries one principal may have running at once; more are refused with RATE_LIMITED. */
  maxConcurrentQueries: number;
  queryWorkers: number;
  readWorkers: number;
  /** The most rows one source of a semantic merge may have; more fails the merge (never trimmed). */
  mergeSourceRows: number;
  /** Days each principal's query history is kept (counted from each query's submission), then purged. */
  queryHistoryDays: number;
}

/** Where artifacts are kept, for how long, and how much of them each principal may hold. */
export interface StoreSettings {
  artifactTtlS: number;
  principalQuotaBytes: number;
  workspaceQuotaBytes: number;
  artifactBytes: ArtifactBytesSetting;
  s3: S3Setting;
  /** Bound on the local cache of remote Parquet parts, in bytes. */
  cacheBytes: number;
  /** PostgreSQL URL of the artifact catalog shared by replicas; unset: SQLite in the data dir. */
  catalogUrl: string | undefined;
}

/** The model provider, and the bounds on what the agent and MCP put in front of a model. */
export interface AiSettings {
  openai: { apiKey: string | undefined; baseUrl: string | undefined; model: string };
  /** The most model calls one agent request may make; a request asking for more gets this. */
  aiMaxIters: number;
  /** The whole agent request's deadline. */
  aiDeadlineMs: number;
  /** The most characters one agent tool result puts in the model's context. */
  aiToolMaxChars: number;
  /** The largest MCP tool result, in characters (MCP clients reject larger ones). */
  mcpMaxChars: number;
}

/** Everything the server reads from its environment, in groups by concern. */
export interface Config extends ServerSettings, QuerySettings, StoreSettings, AiSettings {}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer between ${min} and ${max}; got "${raw}".`);
  }
  return value;
}

function json<T>(env: Env, name: string, schema: z.ZodType<T>): T | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new Error(`${name} is not valid JSON.`);
  }
  const result = schema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new Error(`${name} is invalid at ${issue?.path.join('.') || '(root)'}: ${issue?.message}`);
  }
  return result.data;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(true|1)$/i.test(raw)) return true;
  if (/^(false|0)$/i.test(raw)) return false;
  throw new Error(`${name} must be true or false; got "${raw}".`);
}

// S3's own rule for bucket names (dots allowed, no leading or trailing dash or dot).
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

function artifactBytes(env: Env): ArtifactBytesSetting {
  const raw = env.SLUICE_ARTIFACT_URL;
  if (raw === undefined || raw === '') return { kind: 'file', dir: undefined };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`SLUICE_ARTIFACT_URL must be s3://bucket/prefix or file:///path; got "${raw}".`);
  }
  if (url.protocol === 'file:' && (url.host === '' || url.host === 'localhost') && url.pathname !== '/') {
    return { kind: 'file', dir: decodeURIComponent(url.pathname) };
  }
  if (url.protocol === 's3:' && BUCKET.test(url.host) && url.search === '' && url.hash === '') {
    // Slashes at either end are dropped so keys never hold an empty segment ("prefix//parts").
    return { kind: 's3', bucket: url.host, prefix: decodeURIComponent(url.pathname).replace(/^\/+|\/+$/g, '') };
  }
  throw new Error(`SLUICE_ARTIFACT_URL must be s3://bucket/prefix (a bucket name of 3-63 lowercase letters, digits, dots or dashes) or file:///path; got "${raw}".`);
}

function s3Endpoint(env: Env): string | undefined {
  const raw = env.SLUICE_S3_ENDPOINT;
  if (raw === undefined || raw === '') return undefined;
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  // Credentials belong in the SDK's chain, where they are not printed with the settings.
  if (url === undefined || !/^https?:$/.test(url.protocol) || url.username !== '' || url.password !== '') {
    throw new Error('SLUICE_S3_ENDPOINT must be an http:// or https:// URL without credentials in it.');
  }
  return raw;
}

function catalogUrl(env: Env): string | undefined {
  const raw = env.SLUICE_CATALOG_URL;
  if (raw === undefined || raw === '') return undefined;
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  // The value is not echoed: it usually holds the database password.
  if (url === undefined || !/^postgres(ql)?:$/.test(url.protocol) || url.hostname === '') {
    throw new Error('SLUICE_CATALOG_URL must be a PostgreSQL URL (postgres://user:password@host:port/database).');
  }
  return raw;
}

function metricsToken(env: Env): string | undefined {
  const raw = env.SLUICE_METRICS_TOKEN;
  if (raw === undefined || raw === '') return undefined;
  // Not echoed: it is a secret. Header-safe characters only, so it can be sent as it is.
  if (!/^[\x21-\x7e]{8,256}$/.test(raw)) throw new Error('SLUICE_METRICS_TOKEN must be 8 to 256 printable ASCII characters without spaces.');
  return raw;
}

const OIDC_VARIABLES = ['SLUICE_OIDC_AUDIENCE', 'SLUICE_OIDC_CLAIMS', 'SLUICE_OIDC_PRINCIPAL_PREFIX', 'SLUICE_OIDC_DEFAULT_ROLES', 'SLUICE_OIDC_JWKS_COOLDOWN_S'];
const claimName = z.string().min(1).max(200);
const oidcClaimsSchema = z.object({ principal: claimName, roles: claimName, datasources: claimName }).partial().strict();
// C0 and C1 controls, DEL and the Unicode line and paragraph separators: never part of a principal.
export const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** Plain http only on loopback (a provider run beside the server); anywhere else the keys must come over https. */
export function isTrustedIssuerUrl(url: URL): boolean {
  return url.protocol === 'https:' || (url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname));
}

function oidc(env: Env): OidcSetting | undefined {
  const issuer = env.SLUICE_OIDC_ISSUER;
  if (issuer === undefined || issuer === '') {
    const stray = OIDC_VARIABLES.find((name) => env[name] !== undefined && env[name] !== '');
    if (stray !== undefined) throw new Error(`${stray} is set but SLUICE_OIDC_ISSUER is not; set the issuer or remove ${stray}.`);
    return undefined;
  }
  const url = URL.canParse(issuer) ? new URL(issuer) : undefined;
  if (url === undefined || !isTrustedIssuerUrl(url) || url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
    throw new Error(`SLUICE_OIDC_ISSUER must be an https:// URL (http:// only on loopback) without credentials, query or fragment; got "${issuer}".`);
  }
  const audience = env.SLUICE_OIDC_AUDIENCE;
  if (audience === undefined || audience === '') throw new Error('SLUICE_OIDC_AUDIENCE must be set with SLUICE_OIDC_ISSUER: it is the audience (aud) tokens must be issued for.');
  const prefix = env.SLUICE_OIDC_PRINCIPAL_PREFIX || 'oidc:';
  if (prefix.length > 32 || CONTROL_CHARACTERS.test(prefix) || /^[A-Za-z0-9_.@-]*$/.test(prefix)) {
    throw new Error(`SLUICE_OIDC_PRINCIPAL_PREFIX must be at most 32 characters and hold one that a token principal cannot (such as ":"), so no provider's user can be a token's principal; got "${prefix}".`);
  }
  const claims = json(env, 'SLUICE_OIDC_CLAIMS', oidcClaimsSchema) ?? {};
  return {
    issuer,
    audience,
    claims: { principal: claims.principal ?? 'sub', roles: claims.roles ?? 'sluice_roles', datasources: claims.datasources ?? 'sluice_datasources' },
    principalPrefix: prefix,
    defaultRoles: json(env, 'SLUICE_OIDC_DEFAULT_ROLES', z.array(z.enum(ROLES)).min(1)) ?? ['reader'],
    jwksCooldownMs: int(env, 'SLUICE_OIDC_JWKS_COOLDOWN_S', 30, 0, 3600) * 1000,
  };
}

/** The kind a datasource URL's scheme names, if any (the registry gives the full error for a bad one). */
function kindOfUrl(url: string): DatasourceKind | undefined {
  const scheme = URL.canParse(url) ? new URL(url).protocol : '';
  return DATASOURCE_KINDS.find((kind) => DATASOURCE_SCHEMES[kind].includes(scheme));
}

export function loadConfig(env: Env): Config {
  const datasources = json(env, 'SLUICE_DATASOURCES', z.array(datasourceSchema)) ?? [];
  const ids = new Set<string>();
  for (const ds of datasources) {
    if (ids.has(ds.id)) throw new Error(`SLUICE_DATASOURCES lists the id "${ds.id}" twice.`);
    if (ds.id === 'default' && env.DATABASE_URL) throw new Error('SLUICE_DATASOURCES lists the id "default", which DATABASE_URL already names; give one of them another id.');
    // Only PostgreSQL can set a transaction-local setting for its row-level security policies to read.
    if (ds.claimSettings !== undefined && (ds.kind ?? kindOfUrl(ds.url)) !== 'postgres') {
      throw new Error(`SLUICE_DATASOURCES: datasource "${ds.id}" has claimSettings, which only a PostgreSQL datasource can apply (its row-level security reads them); remove claimSettings or point the entry at PostgreSQL.`);
    }
    ids.add(ds.id);
  }
  return {
    port: int(env, 'PORT', 8787, 0, 65535),
    host: env.HOST || '127.0.0.1',
    dataDir: env.SLUICE_DATA_DIR || './.sluice',
    databaseUrl: env.DATABASE_URL || undefined,
    datasources,
    tokens: json(env, 'SLUICE_TOKENS', z.array(tokenSchema).min(1)),
    oidc: oidc(env),
    previewRows: int(env, 'SLUICE_PREVIEW_ROWS', 50, 0, 500),
    // A preview must fit in a response: at least 1 KiB (a few rows), at most 1 GiB.
    previewBytes: int(env, 'SLUICE_PREVIEW_BYTES', 1024 * 1024, 1024, GIB),
    previewCellChars: int(env, 'SLUICE_PREVIEW_CELL_CHARS', 10_000, 1, 100_000_000),
    maxRows: int(env, 'SLUICE_MAX_ROWS', 1_000_000, 1, Number.MAX_SAFE_INTEGER),
    maxBytes: int(env, 'SLUICE_MAX_BYTES', 268_435_456, 1, Number.MAX_SAFE_INTEGER),
    maxDurationMs: int(env, 'SLUICE_MAX_DURATION_MS', 60_000, 100, 24 * 3600_000),
    mergeSourceRows: int(env, 'SLUICE_MERGE_SOURCE_ROWS', 100_000, 1, 100_000_000),
    queryHistoryDays: int(env, 'SLUICE_QUERY_HISTORY_DAYS', 30, 1, 3650),
    artifactTtlS: int(env, 'SLUICE_ARTIFACT_TTL_S', 86_400, 1, 365 * 86_400),
    principalQuotaBytes: int(env, 'SLUICE_PRINCIPAL_QUOTA_BYTES', 2 * GIB, 0, Number.MAX_SAFE_INTEGER),
    workspaceQuotaBytes: int(env, 'SLUICE_WORKSPACE_QUOTA_BYTES', 20 * GIB, 0, Number.MAX_SAFE_INTEGER),
    queryWorkers: int(env, 'SLUICE_QUERY_WORKERS', 2, 1, 64),
    readWorkers: int(env, 'SLUICE_READ_WORKERS', 2, 1, 64),
    bodyLimitBytes: int(env, 'SLUICE_BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    importMaxBytes: int(env, 'SLUICE_IMPORT_MAX_BYTES', 2 * GIB, 1024, Number.MAX_SAFE_INTEGER),
    openai: {
      apiKey: env.OPENAI_API_KEY || undefined,
      baseUrl: env.OPENAI_BASE_URL || undefined,
      model: env.SLUICE_AI_MODEL || 'gpt-4o-mini',
    },
    modelsDir: env.SLUICE_MODELS_DIR || './models',
    metricsToken: metricsToken(env),
    auditRetentionDays: int(env, 'SLUICE_AUDIT_RETENTION_DAYS', 90, 1, 36_500),
    aiMaxIters: int(env, 'SLUICE_AI_MAX_ITERS', 10, 1, 100),
    aiDeadlineMs: int(env, 'SLUICE_AI_DEADLINE_MS', 90_000, 1_000, 3_600_000),
    aiToolMaxChars: int(env, 'SLUICE_AI_TOOL_MAX_CHARS', 20_000, 1_000, 10_000_000),
    mcpMaxChars: int(env, 'SLUICE_MCP_MAX_CHARS', 20_000, 1_000, 10_000_000),
    rateLimitPerMinute: int(env, 'SLUICE_RATE_LIMIT_PER_MINUTE', 1200, 1, 10_000_000),
    maxConcurrentQueries: int(env, 'SLUICE_MAX_CONCURRENT_QUERIES', 8, 1, 10_000),
    artifactBytes: artifactBytes(env),
    s3: {
      endpoint: s3Endpoint(env),
      region: env.SLUICE_S3_REGION || 'us-east-1',
      forcePathStyle: bool(env, 'SLUICE_S3_FORCE_PATH_STYLE', false),
    },
    cacheBytes: int(env, 'SLUICE_CACHE_BYTES', 2 * GIB, 0, Number.MAX_SAFE_INTEGER),
    catalogUrl: catalogUrl(env),
  };
}
