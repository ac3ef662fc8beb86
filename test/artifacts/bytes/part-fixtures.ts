/**
 * Parts for the bytes tests: files of random bytes (or a real Parquet file
 * written by DuckDB) with their content address, their references in an
 * upload and a way to store them as one, a way to catch the SluiceError a
 * promise fails with, and a look at the files a directory holds (the cache,
 * to see what it kept); for the local directory store, where it keeps a
 * part, a link that fails as one to another disk does, and temporary
 * directories.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll } from 'vitest';
import type { ByteStore, PartRef } from '../../../src/artifacts/bytes/byte-store.ts';
import { SluiceError } from '../../../src/errors.ts';

export interface TestPart {
  path: string;
  sha256: string;
  bytes: number;
  content: Buffer;
}

/** Where a local directory store keeps a part. */
export const storedFile = (root: string, ref: PartRef) => join(root, 'objects', ref.location, ref.name);

/** A link that fails as one to another disk does: the local store then copies through its check. */
export async function crossDevice(): Promise<never> {
  throw Object.assign(new Error('EXDEV: cross-device link not permitted'), { code: 'EXDEV' });
}

/** Makes a new temporary directory named `prefix…` at each call; all of them are removed after the test file. */
export function tempDirs(prefix: string): () => string {
  const made: string[] = [];
  afterAll(() => {
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}

export function sha256Of(content: Uint8Array): string {
  return createHash('sha256').update(content).digest('hex');
}

export function makePart(dir: string, size: number): TestPart {
  const content = randomBytes(size);
  const sha256 = sha256Of(content);
  const path = join(dir, `${sha256}.bin`);
  writeFileSync(path, content);
  return { path, sha256, bytes: size, content };
}

/** The hash of a blob made of these parts (any 64 hex would do: the store only checks its form). */
export function blobHashOf(parts: { sha256: string }[]): string {
  return sha256Of(Buffer.from(parts.map((p) => p.sha256).join('\n')));
}

/** The reference of the `index`th part of the upload at `location`, named as an export names it. */
export function partRef(location: string, part: { sha256: string; bytes: number }, index = 0): PartRef {
  return { location, name: `part-${String(index).padStart(5, '0')}.parquet`, sha256: part.sha256, bytes: part.bytes };
}

/** Stores `parts` as one new upload, as a commit does; returns their references. */
export async function upload(store: ByteStore, parts: Pick<TestPart, 'path' | 'sha256' | 'bytes'>[]): Promise<PartRef[]> {
  const location = store.newLocation();
  const refs = parts.map((part, index) => partRef(location, part, index));
  for (const [index, part] of parts.entries()) await store.putPart(refs[index]!, part.path);
  return refs;
}

/** A Parquet file of `rows` rows, as an export would stage it. */
export async function makeParquetPart(dir: string, rows: number): Promise<Omit<TestPart, 'content'>> {
  const path = join(dir, `p${rows}-${Date.now()}.parquet`);
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  const connection = await instance.connect();
  await connection.run(`copy (select range::int8 as id, 'row ' || range as label from range(${rows})) to '${path}' (format parquet)`);
  connection.closeSync();
  instance.closeSync();
  const content = readFileSync(path);
  return { path, sha256: sha256Of(content), bytes: content.length };
}

export async function countParquetRows(path: string): Promise<number> {
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  const connection = await instance.connect();
  const reader = await connection.runAndReadAll(`select count(*)::int4 from read_parquet(['${path}'])`);
  const count = reader.getRows()[0]?.[0];
  connection.closeSync();
  instance.closeSync();
  return Number(count);
}

/** The SluiceError `promise` fails with; fails the test when it resolves or throws anything else. */
export async function failure(promise: Promise<unknown>): Promise<SluiceError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SluiceError) return error;
    throw new Error(`expected a SluiceError, got ${String(error)}`, { cause: error });
  }
  throw new Error('expected a failure, but it succeeded');
}

/** Every file under `dir` (recursively) with its size; empty when the directory does not exist. */
export function filesUnder(dir: string): { name: string; size: number }[] {
  let names: string[];
  try {
    names = readdirSync(dir, { recursive: true }) as string[];
  } catch {
    return [];
  }
  return names
    .map((name) => ({ name, info: statSync(join(dir, name)) }))
    .filter(({ info }) => info.isFile())
    .map(({ name, info }) => ({ name, size: info.size }));
}
