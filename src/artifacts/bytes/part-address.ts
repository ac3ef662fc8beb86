/**
 * The one layout of content-addressed parts, shared by every backend:
 * `parts/<sha256[0..2]>/<sha256>.parquet` under a store's root (a directory
 * or a bucket prefix). The two-character fan-out keeps directories small on
 * disk and makes key order equal address order, so a listing cursor means
 * the same on every backend. Every address is checked here first: a value
 * that is not 64 hex digits would otherwise name a path outside the store.
 */
import { MAX_PRESIGN_SECONDS } from './byte-store.ts';
import { SluiceError } from '../../errors.ts';

const SHA256 = /^[0-9a-f]{64}$/;
const PART_NAME = /^([0-9a-f]{2})\/([0-9a-f]{64})\.parquet$/;

export const PARTS_DIR = 'parts';

export function checkAddress(sha256: string): string {
  if (!SHA256.test(sha256)) {
    throw new SluiceError('VALIDATION_ERROR', 'A part address must be a SHA-256 in lowercase hex.', { reason: 'BAD_PART_ADDRESS' });
  }
  return sha256;
}

export function checkSize(bytes: number): number {
  if (!Number.isSafeInteger(bytes) || bytes < 0) {
    throw new SluiceError('VALIDATION_ERROR', 'A part size must be a non-negative integer.', { reason: 'BAD_PART_SIZE' });
  }
  return bytes;
}

export function checkExpiry(seconds: number): number {
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_PRESIGN_SECONDS) {
    throw new SluiceError('VALIDATION_ERROR', `A download link lives 1 to ${MAX_PRESIGN_SECONDS} seconds.`, { reason: 'BAD_EXPIRY' });
  }
  return seconds;
}

export function checkLimit(limit: number): number {
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw new SluiceError('VALIDATION_ERROR', 'A page of parts holds 1 to 1000 entries.', { reason: 'BAD_LIMIT' });
  }
  return limit;
}

/** The part's name relative to the parts directory: `ab/ab12….parquet`. */
export function partName(sha256: string): string {
  return `${checkAddress(sha256).slice(0, 2)}/${sha256}.parquet`;
}

/** The address a relative name stands for, or undefined for anything else found there. */
export function addressOf(name: string): string | undefined {
  const match = PART_NAME.exec(name);
  return match !== null && match[2]?.startsWith(match[1] ?? '') ? match[2] : undefined;
}

export function partNotFound(): SluiceError {
  return new SluiceError('NOT_FOUND', 'A part of this artifact is not in storage (it may have just been deleted).', { reason: 'PART_MISSING' });
}

export function presignUnsupported(): SluiceError {
  return new SluiceError('UNSUPPORTED_CAPABILITY', 'This artifact storage cannot hand out download links; download through the API.', { capability: 'presign' });
}
