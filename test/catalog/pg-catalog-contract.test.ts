import { afterAll, describe } from 'vitest';
import { openPgCatalog } from '../../src/catalog/postgres/pg-catalog.ts';
import { skipNote } from '../helpers/skip-note.ts';
import { testCatalog } from './catalog-contract.ts';
import { PG_SKIP_REASON, PG_URL, TestSchemas } from './pg-test-schemas.ts';

const schemas = new TestSchemas();
afterAll(() => schemas.dropAll());

describe.skipIf(PG_SKIP_REASON !== null)(skipNote(PG_SKIP_REASON !== null, 'PostgreSQL catalog', PG_SKIP_REASON ?? ''), () => {
  testCatalog('PostgreSQL', (setup) =>
    openPgCatalog({
      url: PG_URL!,
      schema: schemas.fresh(),
      maxConnections: 2,
      principalQuotaBytes: setup.principalQuotaBytes ?? 1e12,
      workspaceQuotaBytes: setup.workspaceQuotaBytes ?? 1e12,
      now: setup.now,
    }),
  );
});
