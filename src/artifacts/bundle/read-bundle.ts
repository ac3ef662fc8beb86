/**
 * Reading an uploaded session bundle into a scratch directory, checking
 * everything a bundle can get wrong before anything is committed: a tar
 * that is whole, `manifest.json` first and valid (its format version
 * first of all), then only `parts/<sha256>.parquet` entries, each one
 * referenced by the manifest, given once, of the size the manifest says
 * and hashing to its name, and at the end every referenced part present.
 * The body streams through (back-pressure from the disk to the client) and
 * is counted against the import's own size limit as it comes; no entry is
 * ever held whole in memory but the manifest, itself bounded.
 */
import { once } from 'node:events';
import { join } from 'node:path';
import { extract as tarExtract, type Extract } from 'tar-stream';
import { SluiceError } from '../../errors.ts';
import { writeChecked } from '../bytes/content-check.ts';
import { expectedParts, MANIFEST_MAX_BYTES, MANIFEST_NAME, PART_ENTRY, parseManifest, rejected, type Manifest } from './manifest.ts';

/** One entry of the archive as the parser hands it out: its header, and its bytes as they arrive. */
type Entry = Extract extends AsyncIterable<infer E> ? E : never;

export interface ReadBundleOptions {
  /** The scratch directory the parts are written into, as `<sha256>.parquet`. */
  dir: string;
  maxBytes: number;
  /** Called once the manifest is read, before any part is: a quota check can refuse the bundle early. */
  onManifest?: (manifest: Manifest) => Promise<void>;
}

export function partFile(dir: string, sha256: string): string {
  return join(dir, `${sha256}.parquet`);
}

function tooLarge(maxBytes: number): SluiceError {
  return new SluiceError('PAYLOAD_TOO_LARGE', `The session bundle is larger than this server imports (${maxBytes} bytes); nothing was imported.`, { limitBytes: maxBytes });
}

/** Feeds the body into the tar parser, counting it, until the end or until the parser is gone. */
async function feed(body: AsyncIterable<Uint8Array>, extract: Extract, maxBytes: number): Promise<void> {
  let seen = 0;
  try {
    for await (const chunk of body) {
      if (extract.destroyed) return;
      seen += chunk.byteLength;
      if (seen > maxBytes) throw tooLarge(maxBytes);
      if (!extract.write(chunk)) await Promise.race([once(extract, 'drain'), once(extract, 'close')]);
    }
    extract.end(undefined);
  } catch (error) {
    extract.destroy(error as Error);
  }
}

/** The tar parser's own failures, as what is wrong with the bundle; our own errors pass through. */
function bundleError(error: unknown): SluiceError {
  if (error instanceof SluiceError) return error;
  const message = String((error as Error)?.message ?? '');
  if (/unexpected end/i.test(message)) return rejected('TRUNCATED', 'the tar ends before its last entry does (a truncated upload?).');
  return rejected('NOT_A_TAR', 'the body is not a tar archive Sluice can read.');
}

async function readManifest(entry: Entry): Promise<Manifest> {
  if ((entry.header.size ?? 0) > MANIFEST_MAX_BYTES) throw rejected('BAD_MANIFEST', `manifest.json is larger than ${MANIFEST_MAX_BYTES} bytes.`);
  const chunks: Buffer[] = [];
  for await (const chunk of entry) chunks.push(chunk as Buffer);
  return parseManifest(Buffer.concat(chunks).toString('utf8'));
}

async function readPart(entry: Entry, dir: string, sha256: string, bytes: number): Promise<void> {
  if (entry.header.size !== bytes) throw rejected('SIZE_MISMATCH', `part ${sha256} holds ${entry.header.size ?? 0} bytes, not the ${bytes} its manifest says.`);
  try {
    await writeChecked(entry as AsyncIterable<Uint8Array>, partFile(dir, sha256), sha256, bytes);
  } catch (error) {
    if (error instanceof SluiceError && error.code === 'ARTIFACT_CORRUPT') {
      throw error.details?.reason === 'SIZE_MISMATCH' ? rejected('SIZE_MISMATCH', `part ${sha256} is not the size its manifest says.`) : rejected('HASH_MISMATCH', `part ${sha256} does not hash to its name.`);
    }
    throw error;
  }
}

export async function readBundle(body: AsyncIterable<Uint8Array>, options: ReadBundleOptions): Promise<Manifest> {
  const extract = tarExtract();
  const feeding = feed(body, extract, options.maxBytes);
  let manifest: Manifest | undefined;
  let expected = new Map<string, number>();
  const seen = new Set<string>();
  try {
    for await (const entry of extract) {
      const { name, type } = entry.header;
      if (manifest === undefined) {
        if (name !== MANIFEST_NAME || type !== 'file') throw rejected('MANIFEST_NOT_FIRST', 'its first entry is not manifest.json.');
        manifest = await readManifest(entry);
        expected = expectedParts(manifest);
        await options.onManifest?.(manifest);
        continue;
      }
      const sha256 = PART_ENTRY.exec(name)?.[1];
      if (type !== 'file' || sha256 === undefined) throw rejected('BAD_ENTRY', `entry "${name.slice(0, 200)}" is not a part (only parts/<sha256>.parquet files may follow the manifest).`);
      const bytes = expected.get(sha256);
      if (bytes === undefined) throw rejected('EXTRA_PART', `part ${sha256} is not referenced by the manifest.`);
      if (seen.has(sha256)) throw rejected('DUPLICATE_PART', `part ${sha256} is in the bundle twice.`);
      seen.add(sha256);
      await readPart(entry, options.dir, sha256, bytes);
    }
  } catch (error) {
    extract.destroy(null);
    await feeding;
    throw bundleError(error);
  }
  await feeding;
  if (manifest === undefined) throw rejected('MANIFEST_NOT_FIRST', 'it holds no manifest.json.');
  const missing = [...expected.keys()].find((sha256) => !seen.has(sha256));
  if (missing !== undefined) throw rejected('MISSING_PART', `part ${missing}, referenced by the manifest, is not in the bundle.`);
  return manifest;
}
