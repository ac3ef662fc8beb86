/**
 * The one layout of stored parts, shared by every backend:
 * `objects/<location>/<name>` under a store's root (a directory or a bucket
 * prefix), where a location is `<hash[0..2]>/<hash>-<32 random hex>` (or
 * `<hash[0..2]>/<hash>`, as rows written by an earlier version hold) and a
 * name is `part-NNNNN.parquet`. The two-character fan-out keeps directories
 * small on disk. Every location, name and hash is checked here before any
 * backend builds a path or a key from it: anything else could name a file
 * or an object outside the store.
 */
import { MAX_PRESIGN_SECONDS, type PartRef } from './byte-store.ts';
import { SluiceError } from '../../errors.ts';

const SHA256 = /^[0-9a-f]{64}$/;
const LOCATION = /^([0-9a-f]{2})\/([0-9a-f]{64})(?:-[0-9a-f]{32})?$/;
const PART_NAME = /^part-\d{5}\.parquet$/;
/** A stored key below the objects directory: the location, then anything the location holds. */
const UNDER_LOCATION = /^([0-9a-f]{2}\/[0-9a-f]{64}(?:-[0-9a-f]{32})?)\/./;

export const OBJECTS_DIR = 'objects';

function invalid(message: string, reason: string): SluiceError {
  return new SluiceError('VALIDATION_ERROR', message, { reason });
}

export function checkAddress(sha256: string): string {
  if (!SHA256.test(sha256)) throw invalid('A part address must be a SHA-256 in lowercase hex.', 'BAD_PART_ADDRESS');
  return sha256;
}

export function isLocation(location: string): boolean {
  const match = LOCATION.exec(location);
  return match !== null && match[2]?.startsWith(match[1] ?? '-') === true;
}

export function checkLocation(location: string): string {
  if (!isLocation(location)) throw invalid('An upload location is not one this store hands out.', 'BAD_LOCATION');
  return location;
}

export function checkSize(bytes: number): number {
  if (!Number.isSafeInteger(bytes) || bytes < 0) throw invalid('A part size must be a non-negative integer.', 'BAD_PART_SIZE');
  return bytes;
}

/** Checks every field of a reference; returns the part's path below the objects directory, `<location>/<name>`. */
export function partKey(part: PartRef): string {
  checkLocation(part.location);
  if (!PART_NAME.test(part.name)) throw invalid('A part name must be part-NNNNN.parquet.', 'BAD_PART_NAME');
  checkAddress(part.sha256);
  checkSize(part.bytes);
  return `${part.location}/${part.name}`;
}

/** The location a stored key (relative to the objects directory) belongs to, or undefined for anything else found there. */
export function locationOfKey(key: string): string | undefined {
  const location = UNDER_LOCATION.exec(key)?.[1];
  return location !== undefined && isLocation(location) ? location : undefined;
}

/**
 * Listing order is the order of a location's keys: `<location>/` compared
 * as plain strings, as S3 orders keys. A location and the same hash with a
 * suffix (`ab/<h>` and `ab/<h>-<r>`) sort differently as keys than as
 * strings, so both backends compare this way and a cursor means one thing.
 */
export function keyOrder(a: string, b: string): number {
  const [x, y] = [`${a}/`, `${b}/`];
  return x < y ? -1 : x > y ? 1 : 0;
}

/** A location no other upload will use: 128 random bits after the blob's hash. */
/**
 * A location of its own for one upload: `<ab>/<64 random hex>`, the shape
 * earlier versions gave their content directories, so one pattern checks
 * both. It is chosen before the upload's content is known, so parts can be
 * uploaded while the export still runs; the catalog, not the name, says
 * which blob a location holds.
 */
export function newLocation(): string {
  const id = Array.from(crypto.getRandomValues(new Uint8Array(32)), (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${id.slice(0, 2)}/${id}`;
}

export function checkCursor(after: string | undefined): string | undefined {
  if (after !== undefined && !isLocation(after)) throw invalid('This listing position was not handed out by this store.', 'BAD_CURSOR');
  return after;
}

export function checkExpiry(seconds: number): number {
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_PRESIGN_SECONDS) {
    throw invalid(`A download link lives 1 to ${MAX_PRESIGN_SECONDS} seconds.`, 'BAD_EXPIRY');
  }
  return seconds;
}

export function checkLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw invalid('A page of uploads holds 1 to 1000 entries.', 'BAD_LIMIT');
  return limit;
}

export function partNotFound(): SluiceError {
  return new SluiceError('NOT_FOUND', 'A part of this artifact is not in storage (it may have just been deleted).', { reason: 'PART_MISSING' });
}

export function presignUnsupported(): SluiceError {
  return new SluiceError('UNSUPPORTED_CAPABILITY', 'This artifact storage cannot hand out download links; download through the API.', { capability: 'presign' });
}
