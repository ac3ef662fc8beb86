/**
 * The bytes contract of the artifact store: where the Parquet parts of
 * artifacts live, addressed only by their SHA-256. The catalog decides which
 * parts an artifact has and when a part may go; a ByteStore only keeps,
 * hands out and removes immutable content. Callers never see how a backend
 * names things (a key, a bucket, a directory): the one path they get is a
 * local file their DuckDB can read, held by a lease. Optional capabilities
 * are declared, and a method of a capability not declared is refused with
 * UNSUPPORTED_CAPABILITY by the store itself, never by each caller.
 *
 * Failures: a backend that cannot be reached is STORAGE_UNAVAILABLE (503,
 * details.retryable); bytes that fail their hash are ARTIFACT_CORRUPT; a
 * part that is not stored is NOT_FOUND with details.reason PART_MISSING.
 */

export interface ByteStoreCapabilities {
  /** presignGet hands out URLs a client can fetch directly. */
  presign: boolean;
}

/** A local file holding a part's bytes, valid until release (which is idempotent). */
export interface PartLease {
  readonly path: string;
  release(): void;
}

export interface PartPage {
  /** Content addresses (SHA-256, hex) in ascending order. */
  parts: string[];
  /** Opaque: pass as `after` for the next page; null when this page is the last. */
  next: string | null;
}

export interface ByteStore {
  readonly capabilities: ByteStoreCapabilities;
  /**
   * Stores a finished local part under its content address, unless it is
   * there already (`written: false`). The bytes are checked against
   * `sha256` and `bytes` as they are read, so a wrong address is refused
   * (ARTIFACT_CORRUPT) instead of stored. The local file is left in place.
   */
  putPart(localFile: string, sha256: string, bytes: number): Promise<{ written: boolean }>;
  /**
   * A local file of the part for DuckDB to read. The caller releases the
   * lease when its read is over; until then the file stays where it is.
   */
  localPath(sha256: string, bytes: number): Promise<PartLease>;
  /** Removes a part; removing an absent one is not an error. */
  deletePart(sha256: string): Promise<void>;
  /** One bounded page of stored parts, for a sweep of parts no artifact references. */
  listParts(page: { after?: string | undefined; limit: number }): Promise<PartPage>;
  /** A GET URL for the part that expires after `expiresInSeconds` (1..MAX_PRESIGN_SECONDS). */
  presignGet(sha256: string, expiresInSeconds: number): Promise<string>;
  /** Resolves when the backend answers now (for /readyz); STORAGE_UNAVAILABLE otherwise. */
  probe(): Promise<void>;
  /** Lets go of connections; leases already handed out stay valid. */
  close(): void;
}

/** Download links are for a client to use at once; a leaked one stops working within minutes. */
export const MAX_PRESIGN_SECONDS = 900;
