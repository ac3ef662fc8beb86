/**
 * The bytes contract of the artifact store: where the Parquet parts of
 * artifacts live. Parts are kept per upload: each commit's parts go under a
 * location no other upload uses (`newLocation`), and a part is addressed by
 * that location, its file name and its SHA-256. The catalog counts
 * references to blobs (an upload's list of parts) and decides when a
 * location may go; because no two uploads share a location, a collector
 * removing an unreferenced upload can never remove bytes a new commit has
 * just adopted. The SHA-256 checks every byte read and keys the local cache
 * of remote parts (equal hash, equal bytes, whichever upload they came from).
 *
 * Callers never see how a backend names things (a key, a bucket, a
 * directory): the one path they get is a local file their DuckDB can read,
 * held by a lease. Optional capabilities are declared, and a method of a
 * capability not declared is refused with UNSUPPORTED_CAPABILITY by the
 * store itself, never by each caller.
 *
 * Failures: a backend that cannot be reached is STORAGE_UNAVAILABLE (503,
 * details.retryable); bytes that fail their hash are ARTIFACT_CORRUPT; a
 * part that is not stored is NOT_FOUND with details.reason PART_MISSING.
 */

export interface ByteStoreCapabilities {
  /** presignGet hands out URLs a client can fetch directly. */
  presign: boolean;
}

import type { FileStamp } from '../../runtime/digest-file.ts';

/** One part of one upload: where it is, and what its bytes must be. */
export interface PartRef {
  /** The upload's location, from newLocation (or a catalog row written by an earlier version: `ab/<blob sha256>`). */
  location: string;
  /** The part's file name within the upload, as the export named it (`part-00000.parquet`). */
  name: string;
  sha256: string;
  bytes: number;
}

/** A local file holding a part's bytes, valid until release (which is idempotent). */
export interface PartLease {
  readonly path: string;
  /**
   * Settles when the bytes at `path` are known to be the part's. Absent, or
   * resolved, unless the lease was asked for with `checkBeside`: it may then
   * still be hashing, and rejects as localPath would have. Nothing read from
   * `path` may be served before it resolves.
   */
  readonly checked?: Promise<void>;
  release(): void;
}

export interface LeaseOptions {
  /**
   * The path may be handed out before the part's hash check ends, so the
   * caller's read runs beside it (a restart's first read otherwise waits for
   * every part it touches to be hashed, one after another, before DuckDB
   * starts). The caller holds what it read until `checked` resolves.
   */
  checkBeside?: boolean;
}

export interface PutOptions {
  /**
   * This process took the reference's sha256 of the local file while it had
   * this size and modification time. A backend that keeps the same file (a
   * link on the same disk) may count that hash as its check while the file
   * still shows this stamp, as it trusts its own checks (part-verifier.ts);
   * bytes that go anywhere else are checked as they are read, whatever it says.
   */
  hashedAt?: FileStamp | undefined;
}

export interface StoredPart {
  name: string;
  bytes: number;
}

export interface LocationPage {
  /** Locations in ascending order of their keys (`<location>/`), with when their newest part was written (an upload in flight is young). */
  locations: { location: string; modifiedAt: Date }[];
  /** Opaque: pass as `after` for the next page; null when this page is the last. */
  next: string | null;
}

export interface ByteStore {
  readonly capabilities: ByteStoreCapabilities;
  /** A location for one upload, used by no other: chosen before the content is known, so parts can go up as they are made. */
  newLocation(): string;
  /**
   * Stores a finished local part. The bytes are checked against the
   * reference's sha256 and size as they are read, so a wrong reference is
   * refused (ARTIFACT_CORRUPT) instead of stored. The local file may be
   * moved or linked rather than copied when the backend is the same disk;
   * the caller removes its staging directory afterwards either way.
   */
  putPart(part: PartRef, localFile: string, options?: PutOptions): Promise<void>;
  /**
   * A local file of the part for DuckDB to read. The caller releases the
   * lease when its read is over; until then the file stays where it is.
   */
  localPath(part: PartRef, options?: LeaseOptions): Promise<PartLease>;
  /** Removes every part of an upload; removing an absent location is not an error. */
  deleteLocation(location: string): Promise<void>;
  /** The files one upload holds now, by name, with their sizes: what a store check compares with the catalog. */
  listParts(location: string): Promise<StoredPart[]>;
  /**
   * The part's stored bytes as they are, unchecked, for a check that hashes
   * them itself (a read through the cache could hide damage to the stored
   * copy); NOT_FOUND (PART_MISSING) when it is not stored.
   */
  openPart(part: PartRef): Promise<AsyncIterable<Uint8Array>>;
  /** One bounded page of stored uploads, for a sweep of uploads no blob references. */
  listLocations(page: { after?: string | undefined; limit: number }): Promise<LocationPage>;
  /** A GET URL for the part that expires after `expiresInSeconds` (1..MAX_PRESIGN_SECONDS). */
  presignGet(part: PartRef, expiresInSeconds: number): Promise<string>;
  /** Resolves when the backend answers now (for /readyz); STORAGE_UNAVAILABLE otherwise. */
  probe(): Promise<void>;
  /**
   * Starts checking the stored parts against their bytes in the background, once, where a
   * backend checks parts when it first hands them out (the local directory); absent elsewhere.
   */
  verifyStored?(): void;
  /** Lets go of connections (and stops background checks); leases already handed out stay valid. */
  close(): void;
}

/** Download links are for a client to use at once; a leaked one stops working within minutes. */
export const MAX_PRESIGN_SECONDS = 900;
