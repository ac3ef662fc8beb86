/**
 * Checks bytes against their content address while they stream, so no part
 * is ever read twice to be verified and none is held whole in memory: a
 * stream stage that hashes and counts what passes and fails (before its end
 * is signalled downstream) when the bytes are not the ones named. Node
 * streams and files: this module's job is moving parts between the local
 * disk and a backend.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { SluiceError } from '../../errors.ts';
import { digestFile } from '../../runtime/digest-file.ts';

export { PART_READ_BYTES } from '../../runtime/digest-file.ts';

export function corrupt(sha256: string, reason: 'SIZE_MISMATCH' | 'HASH_MISMATCH'): SluiceError {
  return new SluiceError('ARTIFACT_CORRUPT', 'Stored bytes of this artifact do not match their hash; the artifact cannot be read.', {
    reason,
    part: sha256,
  });
}

/**
 * A pass-through stage that fails when more than `bytes` arrive, or, at the
 * end, when the count or the SHA-256 differ. It holds the latest chunk back
 * until the next one arrives, and the last until the verdict: a consumer
 * that acts once it has every byte (a single PUT of known length completes
 * on its last byte, an upload on its end, a rename after the write) never
 * has them all when they are wrong.
 */
export function contentCheck(sha256: string, bytes: number): Transform {
  const hash = createHash('sha256');
  let seen = 0;
  let held: Buffer | null = null;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (seen > bytes) return callback(corrupt(sha256, 'SIZE_MISMATCH'));
      hash.update(chunk);
      const previous = held;
      held = chunk;
      callback(null, previous ?? undefined);
    },
    flush(callback) {
      if (seen !== bytes) return callback(corrupt(sha256, 'SIZE_MISMATCH'));
      if (hash.digest('hex') !== sha256) return callback(corrupt(sha256, 'HASH_MISMATCH'));
      callback(null, held ?? undefined);
    },
  });
}

/**
 * Writes `source` to `target` (a new file) through the check, flushed to
 * disk before it resolves so a rename after it never exposes a file the
 * page cache had not written yet. On any failure `target` is removed.
 */
export async function writeChecked(source: Readable | AsyncIterable<Uint8Array>, target: string, sha256: string, bytes: number): Promise<void> {
  try {
    await pipeline(source, contentCheck(sha256, bytes), createWriteStream(target, { flags: 'wx', flush: true }));
  } catch (error) {
    await rm(target, { force: true });
    throw error;
  }
}

/** Reads a whole file and fails unless it holds exactly the bytes named. */
export async function verifyFile(path: string, sha256: string, bytes: number): Promise<void> {
  const found = await digestFile(path);
  if (found.bytes !== bytes) throw corrupt(sha256, 'SIZE_MISMATCH');
  if (found.sha256 !== sha256) throw corrupt(sha256, 'HASH_MISMATCH');
}
