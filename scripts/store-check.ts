/**
 * `npm run store:check`: walks the artifact catalog against the stored bytes
 * (the same rounds as POST /api/admin/store-check) with the server's own
 * settings (SLUICE_DATA_DIR, SLUICE_CATALOG_URL, SLUICE_ARTIFACT_URL, ...),
 * printing each missing, corrupt or orphaned part as one JSON line and a
 * summary at the end. Exit status: 0 when nothing is wrong, 1 when something
 * is, 2 when the check could not run. It only reads; it can run beside a
 * live server. `--limit N` sets the blobs (or uploads) per round.
 */
import process from 'node:process';
import { loadConfig } from '../src/config.ts';
import { consoleLogger } from '../src/logger.ts';
import { openStore } from '../src/artifacts/store/open-store.ts';

function limitArg(): number {
  const at = process.argv.indexOf('--limit');
  const limit = at === -1 ? 100 : Number(process.argv[at + 1]);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new Error('--limit takes a whole number from 1 to 1000.');
  return limit;
}

async function main(): Promise<number> {
  const limit = limitArg();
  const config = loadConfig(process.env);
  const noWorkers = async (): Promise<never> => {
    throw new Error('The store check reads no Parquet.');
  };
  const { store, catalog } = openStore(config, { log: consoleLogger, workers: { read: noWorkers, writeFile: noWorkers } });
  try {
    await catalog.opened;
    const totals = { blobs: 0, parts: 0, locations: 0, missing: 0, corrupt: 0, orphaned: 0, rounds: 0 };
    let cursor: string | undefined;
    do {
      const round = await store.checkStore({ cursor, limit });
      totals.rounds++;
      for (const key of ['blobs', 'parts', 'locations'] as const) totals[key] += round.checked[key];
      for (const problem of ['missing', 'corrupt', 'orphaned'] as const) {
        for (const finding of round[problem]) console.log(JSON.stringify({ problem, ...finding }));
        totals[problem] += round[problem].length;
      }
      cursor = round.nextCursor ?? undefined;
    } while (cursor !== undefined);
    console.log(JSON.stringify({ summary: totals }));
    return totals.missing + totals.corrupt + totals.orphaned === 0 ? 0 : 1;
  } finally {
    await store.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`store:check could not run: ${(error as Error).message}`);
    process.exit(2);
  },
);
