/**
 * The store contract on all four combinations: SQLite or PostgreSQL catalog
 * × local directory or S3-compatible bytes (an s3rver started here). The
 * PostgreSQL ones need a real server (TEST_DATABASE_URL) and say so when
 * skipped.
 */
import { mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { createLocalBytes } from '../../src/artifacts/bytes/local-bytes.ts';
import { PartCache } from '../../src/artifacts/bytes/part-cache.ts';
import { createS3Bytes } from '../../src/artifacts/bytes/s3-bytes.ts';
import { createS3Client } from '../../src/artifacts/bytes/s3-client.ts';
import type { ByteStore } from '../../src/artifacts/bytes/byte-store.ts';
import type { Catalog } from '../../src/catalog/catalog.ts';
import { openPgCatalog } from '../../src/catalog/postgres/pg-catalog.ts';
import { openSqliteCatalog } from '../../src/catalog/sqlite/sqlite-catalog.ts';
import { createStore } from '../../src/artifacts/store/create-store.ts';
import { quietLogger } from '../../src/logger.ts';
import { skipNote } from '../helpers/skip-note.ts';
import { startS3Server, type TestS3Server } from '../helpers/s3-server.ts';
import { PG_SKIP_REASON, PG_URL, TestSchemas } from '../catalog/pg-test-schemas.ts';
import { testArtifactStore, type DriverFactory, type DriverOptions } from './store-contract.ts';

let s3: TestS3Server;
const schemas = new TestSchemas();
/** One schema per data dir, so reopening a dir reopens its catalog. */
const schemaOf = new Map<string, string>();
beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(async () => {
  await s3?.close();
  await schemas.dropAll();
});

type CatalogKind = 'sqlite' | 'postgres';
type BytesKind = 'local' | 's3';

async function catalogFor(kind: CatalogKind, dir: string, options: DriverOptions): Promise<Catalog> {
  const quotas = { principalQuotaBytes: options.principalQuotaBytes ?? 1e12, workspaceQuotaBytes: options.workspaceQuotaBytes ?? 1e12, now: options.now };
  if (kind === 'sqlite') {
    mkdirSync(join(dir, 'artifacts'), { recursive: true });
    return openSqliteCatalog({ file: join(dir, 'artifacts', 'catalog.sqlite'), ...quotas });
  }
  let schema = schemaOf.get(dir);
  if (schema === undefined) schemaOf.set(dir, (schema = schemas.fresh()));
  return openPgCatalog({ url: PG_URL!, schema, maxConnections: 2, ...quotas });
}

function bytesFor(kind: BytesKind, dir: string): ByteStore {
  if (kind === 'local') return createLocalBytes({ root: join(dir, 'artifacts') });
  return createS3Bytes({
    client: createS3Client({ endpoint: s3.endpoint, region: 'us-east-1', forcePathStyle: true }),
    bucket: s3.bucket,
    // One prefix per data dir: each store sees its own bytes only, as replicas of different deployments would.
    prefix: `stores/${basename(dir)}`,
    cache: new PartCache({ dir: join(dir, 'cache', 'parts'), maxBytes: 64 * 1024 * 1024 }),
  });
}

function combination(catalogKind: CatalogKind, bytesKind: BytesKind): DriverFactory {
  return async (dir, options) => {
    const catalog = await catalogFor(catalogKind, dir, options);
    const bytes = bytesFor(bytesKind, dir);
    return createStore(
      {
        catalog,
        bytes,
        workers: options.workers,
        stagingRoot: join(dir, 'artifacts', 'staging'),
        downloadsRoot: join(dir, 'artifacts', 'downloads'),
        now: options.now,
        log: quietLogger,
        replica: `test-${basename(dir)}`,
        checkpoint: () => undefined,
      },
      async () => {
        bytes.close();
        await catalog.close();
      },
    );
  };
}

testArtifactStore('SQLite catalog + local bytes', combination('sqlite', 'local'));
testArtifactStore('SQLite catalog + S3 bytes', combination('sqlite', 's3'));
if (PG_SKIP_REASON === null) {
  testArtifactStore('PostgreSQL catalog + local bytes', combination('postgres', 'local'));
  testArtifactStore('PostgreSQL catalog + S3 bytes', combination('postgres', 's3'));
} else {
  skipNote(true, 'PostgreSQL catalog combinations of the store contract', PG_SKIP_REASON);
}
