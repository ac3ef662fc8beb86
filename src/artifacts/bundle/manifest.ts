/**
 * The session bundle's manifest: the first entry of an exported tar,
 * `manifest.json`, naming the format and its version, every artifact's
 * metadata and columns, and each artifact's parts in order with their
 * SHA-256 and size. Parts follow as `parts/<sha256>.parquet`, one entry per
 * distinct part. The schema here is what an import trusts of a bundle, so
 * every field that ever reaches a statement (a column's DuckDB type, its
 * stored name) is held to what Sluice itself writes.
 */
import { z } from 'zod';
import { SluiceError } from '../../errors.ts';
import { CAPS, COVERAGES, type BundleRejection } from '../../vocabulary.ts';

export const BUNDLE_FORMAT = 'sluice-session';
export const BUNDLE_VERSION = 1;
export const MANIFEST_NAME = 'manifest.json';
/** A manifest is metadata only; anything larger is not one Sluice wrote. */
export const MANIFEST_MAX_BYTES = 16 * 1024 * 1024;
export const PART_ENTRY = /^parts\/([0-9a-f]{64})\.parquet$/;

export function partEntryName(sha256: string): string {
  return `parts/${sha256}.parquet`;
}

const SHA256 = z.string().regex(/^[0-9a-f]{64}$/);
const DUCK_TYPE = z.string().regex(/^(BOOLEAN|INTEGER|BIGINT|DOUBLE|VARCHAR|DATE|TIMESTAMP|TIMESTAMPTZ|DECIMAL\(\d{1,2},\d{1,2}\))$/);
const STORAGE_KINDS = ['bool', 'int', 'int8', 'float', 'decimal', 'numeric_text', 'text', 'date', 'timestamp', 'timestamptz', 'bytea', 'json_array'] as const;

const Column = z.object({
  name: z.string().max(10_000),
  type: z.string().max(200),
  storageName: z.string().min(1).max(10_000),
  storage: z.enum(STORAGE_KINDS),
  duckType: DUCK_TYPE,
}).strict();

const Part = z.object({ name: z.string().regex(/^part-\d{5}\.parquet$/), sha256: SHA256, bytes: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER), rows: z.number().int().nonnegative() }).strict();

const BundleArtifact = z.object({
  id: z.string().min(1).max(200),
  sql: z.string().max(1_000_000),
  datasource: z.string().max(200),
  columns: z.array(Column).min(1).max(10_000),
  rowCount: z.number().int().nonnegative(),
  sizeBytes: z.number().int().nonnegative(),
  coverage: z.enum(COVERAGES),
  boundedBy: z.enum(CAPS).nullable(),
  createdAt: z.string().max(40),
  expiresAt: z.string().max(40),
  parts: z.array(Part).min(1).max(100_000),
}).strict();

export const Manifest = z.object({
  format: z.literal(BUNDLE_FORMAT),
  version: z.literal(BUNDLE_VERSION),
  sessionId: z.string().max(200),
  exportedAt: z.string().max(40),
  artifacts: z.array(BundleArtifact).max(100_000),
}).strict();

export type Manifest = z.infer<typeof Manifest>;
export type BundleArtifact = z.infer<typeof BundleArtifact>;

export function rejected(reason: BundleRejection, message: string): SluiceError {
  return new SluiceError('VALIDATION_ERROR', `This session bundle was not imported: ${message} Nothing was imported.`, { reason });
}

/** The manifest's text as an import reads it: version first (a newer format is named as such), then every field. */
export function parseManifest(text: string): Manifest {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw rejected('BAD_MANIFEST', 'manifest.json is not JSON.');
  }
  const head = raw as { format?: unknown; version?: unknown } | null;
  if (typeof head !== 'object' || head === null || head.format !== BUNDLE_FORMAT) throw rejected('BAD_MANIFEST', `manifest.json does not name the format "${BUNDLE_FORMAT}".`);
  if (head.version !== BUNDLE_VERSION) {
    throw rejected('UNSUPPORTED_VERSION', `its format version ${JSON.stringify(head.version).slice(0, 20)} is not one this server reads (it reads version ${BUNDLE_VERSION}).`);
  }
  const parsed = Manifest.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw rejected('BAD_MANIFEST', `manifest.json is not valid at ${issue?.path.map(String).join('.') || 'its top'}: ${issue?.message ?? 'invalid'}.`);
  }
  checkConsistent(parsed.data);
  return parsed.data;
}

/** What a schema cannot say: ids unique, stored names unique, one size per part, sizes that add up. */
function checkConsistent(manifest: Manifest): void {
  const ids = new Set<string>();
  const sizes = new Map<string, number>();
  for (const artifact of manifest.artifacts) {
    if (ids.has(artifact.id)) throw rejected('BAD_MANIFEST', `artifact "${artifact.id.slice(0, 200)}" is listed twice.`);
    ids.add(artifact.id);
    const names = new Set<string>(['filename', 'file_row_number']);
    for (const column of artifact.columns) {
      const key = column.storageName.toLowerCase();
      if (names.has(key)) throw rejected('BAD_MANIFEST', `artifact "${artifact.id}" stores two columns (or a reserved one) under one name.`);
      names.add(key);
    }
    const partNames = new Set(artifact.parts.map((p) => p.name));
    if (partNames.size !== artifact.parts.length) throw rejected('BAD_MANIFEST', `artifact "${artifact.id}" names one part twice.`);
    for (const part of artifact.parts) {
      const known = sizes.get(part.sha256);
      if (known !== undefined && known !== part.bytes) throw rejected('BAD_MANIFEST', `part ${part.sha256} is given two sizes.`);
      sizes.set(part.sha256, part.bytes);
    }
    const total = artifact.parts.reduce((sum, p) => sum + p.bytes, 0);
    if (total !== artifact.sizeBytes) throw rejected('BAD_MANIFEST', `artifact "${artifact.id}" says ${artifact.sizeBytes} bytes but its parts hold ${total}.`);
  }
}

/** Every distinct part the manifest references, with its size. */
export function expectedParts(manifest: Manifest): Map<string, number> {
  const parts = new Map<string, number>();
  for (const artifact of manifest.artifacts) for (const part of artifact.parts) parts.set(part.sha256, part.bytes);
  return parts;
}
