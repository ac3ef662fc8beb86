import { createLocalStore } from '../../src/artifacts/drivers/local.ts';
import { testArtifactStore } from './store-contract.ts';

testArtifactStore('local files + SQLite catalog', (dataDir, options) =>
  createLocalStore({
    dataDir,
    workers: options.workers,
    principalQuotaBytes: options.principalQuotaBytes ?? 1e12,
    workspaceQuotaBytes: options.workspaceQuotaBytes ?? 1e12,
    ...(options.now ? { now: options.now } : {}),
  }),
);
