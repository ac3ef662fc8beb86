/**
 * The first read of an artifact right after its export, in the same
 * process, against the same read once more: an export of `rows` rows from
 * the bench table, then a full sort of it (100 rows back), then two more
 * sorts that differ only in their limit, so no page cache answers them.
 * Each round exports a result of its own (one row fewer each time), so no
 * earlier artifact is shared. The ratio is the first read's time over the
 * faster of the two after it.
 *
 *   npx tsx bench/diag/first-read-after-export.ts [rows=2000000] [rounds=4]
 */
import { runExport, startBenchSluice } from '../lib/sluice.ts';
import { ensureTable, exportSql } from '../lib/tables.ts';

const rows = Number(process.argv[2] ?? 2_000_000);
const rounds = Number(process.argv[3] ?? 4);
const SORT = [{ column: 'score', direction: 'desc' }];

await ensureTable('rows_5m', 5_000_000, console.log);
const s = await startBenchSluice();
try {
  // The server's first export pays for the worker's start; not measured.
  await runExport(s, exportSql(1000));
  for (let round = 0; round < rounds; round++) {
    const { artifactId } = await runExport(s, exportSql(rows - round));
    const sorted = async (limit: number) => {
      const started = performance.now();
      const answer = await s.api('POST', `/api/artifacts/${artifactId}/read`, { limit, sort: SORT });
      if (answer.status !== 200) throw new Error(`read: ${answer.status} ${JSON.stringify(answer.body)}`);
      return performance.now() - started;
    };
    const first = await sorted(100);
    const again = [await sorted(101), await sorted(102)];
    const ratio = first / Math.min(...again);
    console.log(`round ${round + 1}: first read ${first.toFixed(0)} ms, again ${again.map((ms) => ms.toFixed(0)).join(' and ')} ms, ratio ${ratio.toFixed(2)}`);
  }
} finally {
  await s.stop();
}
