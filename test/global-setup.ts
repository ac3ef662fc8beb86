/**
 * Without TEST_DATABASE_URL the suites run on the embedded database: one
 * PGlite, seeded once (kept in node_modules/.cache between runs) and started
 * here for the whole run, so every test file and every server in it sees the
 * same data, as with a real PostgreSQL. Tests that need what PGlite cannot do
 * (cancel a running statement, kill one backend) skip themselves on it.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../src/datasources/postgres/embedded/start-embedded.ts';

const TEMPLATE_DIR = resolve('node_modules/.cache/sluice-test/pglite');
let database: EmbeddedPostgres | null = null;
let runDir: string | null = null;

export default async function setup(): Promise<() => Promise<void>> {
  if (process.env.TEST_DATABASE_URL) return async () => undefined;
  const marker = resolve(TEMPLATE_DIR, '..', 'seeded');
  if (!existsSync(marker)) {
    rmSync(TEMPLATE_DIR, { recursive: true, force: true });
    mkdirSync(TEMPLATE_DIR, { recursive: true });
    await (await startEmbeddedPostgres({ dataDir: TEMPLATE_DIR, log: () => undefined })).stop();
    mkdirSync(marker, { recursive: true });
  }
  runDir = mkdtempSync(join(tmpdir(), 'sluice-test-db-'));
  cpSync(TEMPLATE_DIR, runDir, { recursive: true });
  database = await startEmbeddedPostgres({ dataDir: runDir, log: () => undefined });
  process.env.TEST_DATABASE_URL = database.url;
  process.env.SLUICE_TEST_EMBEDDED = '1';
  return async () => {
    await database?.stop();
    if (runDir) rmSync(runDir, { recursive: true, force: true });
  };
}
