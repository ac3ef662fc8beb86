/**
 * Without TEST_DATABASE_URL the suites run on the embedded database. Seeding
 * it takes ~20 s, so it is seeded once here into a template that each test
 * server copies, instead of once per test file.
 */
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { startEmbeddedPostgres } from '../src/datasources/embedded/start-embedded.ts';

export const TEMPLATE_DIR = resolve('node_modules/.cache/sluice-test/pglite');

export default async function setup(): Promise<void> {
  if (process.env.TEST_DATABASE_URL) return;
  const marker = resolve(TEMPLATE_DIR, '..', 'seeded');
  if (existsSync(marker)) return;
  rmSync(TEMPLATE_DIR, { recursive: true, force: true });
  mkdirSync(TEMPLATE_DIR, { recursive: true });
  const db = await startEmbeddedPostgres({ dataDir: TEMPLATE_DIR, log: () => undefined });
  await db.stop();
  mkdirSync(marker, { recursive: true });
}
