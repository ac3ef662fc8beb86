/**
 * The read figures, on the artifact of a 10M-row query: first page, a deep
 * page (a cursor at row 9,999,000), a filtered page and a sorted top-100,
 * each against DuckDB querying the same Parquet parts directly (in this
 * process) and PostgreSQL on the source table; then 50 concurrent readers.
 * Sluice runs in-process and is read over HTTP, like a client would.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { CursorCodec, readShape } from '../src/artifacts/cursor.ts';
import { buildReadStatement } from '../src/artifacts/read-sql.ts';
import type { ReadRequest } from '../src/artifacts/types.ts';
import { quoteLiteral } from '../src/columns/column-plan.ts';
import { openAdminSql } from '../test/helpers/admin-sql.ts';
import { plannedColumns } from './lib/describe.ts';
import { sampleLoopGaps } from './lib/loop-gap.ts';
import { partFiles } from './lib/part-files.ts';
import type { Row, Section } from './lib/report.ts';
import { mb, median, ms, percentile, ratio, spread } from './lib/stats.ts';
import { PRINCIPAL, runExport, startBenchSluice, submitAndWait, TOKEN, type BenchSluice } from './lib/sluice.ts';
import { DATABASE_URL, ensureTable } from './lib/tables.ts';
import { interleave, timed } from './lib/timing.ts';

const ROWS = 10_000_000;
const DEEP = 9_999_000;
// ORDER BY: without it a scan may start mid-table (synchronized scans) and the artifact's row order would not be id order.
const SOURCE = 'SELECT * FROM bench.rows_10m ORDER BY id';
const FILTER = { column: 'label', op: 'contains', value: 'beef' } as const;
const SORT = { column: 'score', direction: 'desc' } as const;

function expect(condition: boolean, message: string): void {
  if (!condition) throw new Error(`reads: ${message}`);
}

export async function readsSection(log: (line: string) => void, rounds = 7): Promise<Section> {
  await ensureTable('rows_10m', ROWS, log);
  const s: BenchSluice = await startBenchSluice();
  const pg = openAdminSql(DATABASE_URL);
  const duckInstance = await DuckDBInstance.create(':memory:', { threads: '2' });
  const duck = await duckInstance.connect();
  try {
    await duck.run("SET TimeZone = 'UTC'");
    await submitAndWait(s, { sql: 'SELECT 1', materialize: 'never' });
    log('reads: exporting the 10M-row artifact');
    const made = await runExport(s, SOURCE);
    expect(made.rows === ROWS, `the artifact holds ${made.rows} rows`);
    log(`  ${ms(made.totalMs)}, ${mb(made.sizeBytes)} of Parquet`);
    const id = made.artifactId;
    const files = partFiles(s.dataDir);
    expect(files.length > 0, 'no Parquet parts found');
    const from = `read_parquet([${files.map(quoteLiteral).join(', ')}])`;
    const deepCursor = new CursorCodec(s.cursorKey).encode(id, PRINCIPAL, readShape({}), DEEP);
    const columns = await plannedColumns(SOURCE);

    async function read(body: Record<string, unknown>, rows: number): Promise<unknown[][]> {
      const r = await s.api('POST', `/api/artifacts/${id}/read`, body);
      expect(r.status === 200, `read ${JSON.stringify(body).slice(0, 80)} answered ${r.status}: ${JSON.stringify(r.body).slice(0, 200)}`);
      expect(r.body.data.rows.length === rows, `read returned ${r.body.data.rows.length} rows, expected ${rows}`);
      return r.body.data.rows as unknown[][];
    }
    async function duckRows(sql: string, params: (string | number | boolean | null)[] = []): Promise<unknown[][]> {
      return (await duck.runAndReadAll(sql, params)).getRowsJS();
    }
    /** The statement Sluice's read worker runs, run here directly (no HTTP, no worker, no queue). */
    async function sluiceSqlDirect(request: ReadRequest): Promise<unknown[][]> {
      const parts = await partRows();
      const statement = buildReadStatement(columns, parts, request);
      return (await duckRows(statement.sql, statement.params)).map((r) => JSON.parse(String(r[0])) as unknown[]);
    }
    let partsCache: { path: string; rows: number }[] | null = null;
    /** Each part's row count, as the catalog holds it, from the Parquet footers. */
    async function partRows() {
      partsCache ??= await Promise.all(
        files.map(async (path) => ({ path, rows: Number((await duckRows(`SELECT count(*) FROM read_parquet(${quoteLiteral(path)})`))[0]![0]) })),
      );
      return partsCache;
    }

    /**
     * Each call one row shorter than the last (wrapping after 50; never the limit of the reads that
     * check correctness above), the same sequence for every
     * contender: Sluice keeps recent pages in memory, and a repeated request would time that
     * instead of the read.
     */
    function sized<T>(limit: number, run: (limit: number) => Promise<T>): () => Promise<T> {
      let n = 0;
      return () => run(limit - 1 - (n++ % 50));
    }

    // Correctness of what is timed.
    const deep = await read({ limit: 1000, cursor: deepCursor }, 1000);
    expect(deep[0]![0] === String(DEEP + 1), `the deep page starts at id ${String(deep[0]![0])}`);
    const top = await read({ limit: 100, sort: [SORT] }, 100);
    expect(top[0]![0] === String(ROWS), `the sorted page starts at id ${String(top[0]![0])}`);

    log('reads: first and deep pages');
    const pages = await interleave(
      {
        'sluice first': sized(1000, (limit) => read({ limit }, limit)),
        'sluice deep': sized(1000, (limit) => read({ limit, cursor: deepCursor }, limit)),
        'duckdb first': sized(1000, (limit) => duckRows(`SELECT * FROM ${from} LIMIT ${limit}`)),
        'duckdb deep': sized(1000, (limit) => duckRows(`SELECT * FROM ${from} LIMIT ${limit} OFFSET ${DEEP}`)),
        'pg first': () => pg.query('SELECT * FROM bench.rows_10m ORDER BY id LIMIT 1000'),
        'pg deep': () => pg.query(`SELECT * FROM bench.rows_10m ORDER BY id OFFSET ${DEEP} LIMIT 1000`),
      },
      rounds,
      { log },
    );
    log('reads: filtered page');
    const filtered = await interleave(
      {
        sluice: sized(1000, (limit) => read({ limit, filters: [FILTER] }, limit)),
        'sluice sql direct': sized(1000, (limit) => sluiceSqlDirect({ limit, offset: 0, filters: [FILTER] })),
        duckdb: sized(1000, (limit) => duckRows(`SELECT * FROM ${from} WHERE contains(label, 'beef') LIMIT ${limit}`)),
        pg: () => pg.query("SELECT * FROM bench.rows_10m WHERE label LIKE '%beef%' ORDER BY id LIMIT 1000"),
      },
      Math.max(3, rounds - 2),
      { log },
    );
    log('reads: sorted top-100');
    const sorted = await interleave(
      {
        sluice: sized(100, (limit) => read({ limit, sort: [SORT] }, limit)),
        'sluice sql direct': sized(100, (limit) => sluiceSqlDirect({ limit, offset: 0, sort: [SORT] })),
        duckdb: sized(100, (limit) => duckRows(`SELECT * FROM ${from} ORDER BY score DESC LIMIT ${limit}`)),
        pg: () => pg.query('SELECT * FROM bench.rows_10m ORDER BY score DESC LIMIT 100'),
      },
      3,
      // The slowest contenders here take seconds: no warm-up round (the parts are in the page cache by now).
      { log, warmup: false },
    );

    log('reads: 50 concurrent readers, 4 pages each');
    const codec = new CursorCodec(s.cursorKey);
    const latencies: number[] = [];
    const errors: string[] = [];
    const gaps = sampleLoopGaps(10);
    const concurrent = await timed(() =>
      Promise.all(
        Array.from({ length: 50 }, async (_, reader) => {
          let offset = reader * 199_000;
          let cursor: string | null = codec.encode(id, PRINCIPAL, readShape({}), offset);
          for (let page = 0; page < 4 && cursor !== null; page++) {
            const t0 = performance.now();
            try {
              const r: { status: number; body: any } = await s.api('POST', `/api/artifacts/${id}/read`, { limit: 1000, cursor });
              latencies.push(performance.now() - t0);
              if (r.status !== 200) throw new Error(`${r.status} ${r.body?.error?.code ?? ''}`);
              const rows = r.body.data.rows as unknown[][];
              if (rows.length !== 1000 || rows[0]![0] !== String(offset + 1)) throw new Error(`page at ${offset} starts at ${String(rows[0]?.[0])}`);
              offset += rows.length;
              cursor = r.body.data.nextCursor;
            } catch (error) {
              errors.push((error as Error).message);
              return;
            }
          }
        }),
      ),
    );
    const loop = gaps.stop();

    // Whole-artifact downloads, read to the end by a client in the same process: the bytes
    // stream through the API's event loop, so a stall here is one every caller would feel.
    log('reads: whole-artifact downloads (parquet, csv)');
    const downloads: { format: string; status: number; ms: number; bytes: number; stallMs: number }[] = [];
    for (const format of ['parquet', 'csv'] as const) {
      const downloadGaps = sampleLoopGaps(10);
      const t0 = performance.now();
      const response = await fetch(`${s.sluice.url}/api/artifacts/${id}/download?format=${format}`, { headers: { 'x-token': TOKEN } });
      let bytes = 0;
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
      const elapsed = performance.now() - t0;
      downloads.push({ format, status: response.status, ms: elapsed, bytes, stallMs: downloadGaps.stop().maxMs });
      log(`  ${format}: ${response.status}, ${mb(bytes)} in ${ms(elapsed)}`);
    }
    const worstDownloadStall = Math.max(...downloads.map((d) => d.stallMs));

    const sf = median(pages['sluice first']!);
    const sd = median(pages['sluice deep']!);
    const pgDeep = median(pages['pg deep']!);
    const filterRatio = median(filtered.sluice!) / median(filtered.duckdb!);
    const sortRatio = median(sorted.sluice!) / median(sorted.duckdb!);
    const rows: Row[] = [
      {
        figure: 'Deep page (cursor at row 9,999,000) ÷ first page',
        target: '≤ 1× (no slower)',
        measured: `${ratio(sd / sf)} (${ms(sd)} vs ${ms(sf)})`,
        held: sd / sf <= 1,
      },
      {
        figure: 'PostgreSQL OFFSET 9,999,000 ÷ Sluice deep page',
        target: '≥ 20× (Sluice faster)',
        measured: `${ratio(pgDeep / sd)} (${ms(pgDeep)} vs ${ms(sd)})`,
        held: pgDeep / sd >= 20,
      },
      {
        figure: 'First page: Sluice ÷ DuckDB direct',
        target: '(info)',
        measured: `${ratio(sf / median(pages['duckdb first']!))} (DuckDB ${ms(median(pages['duckdb first']!))})`,
        held: null,
      },
      {
        figure: 'Deep page: Sluice ÷ DuckDB direct (OFFSET)',
        target: '(info)',
        measured: `${ratio(sd / median(pages['duckdb deep']!))} (DuckDB ${ms(median(pages['duckdb deep']!))})`,
        held: null,
      },
      {
        figure: 'Filtered page (label contains "beef"): Sluice ÷ DuckDB direct',
        target: '≤ 1.2×',
        measured: `${ratio(filterRatio)} (${ms(median(filtered.sluice!))} vs ${ms(median(filtered.duckdb!))})`,
        held: filterRatio <= 1.2,
      },
      {
        figure: 'Filtered page: PostgreSQL ÷ Sluice',
        target: '(info)',
        measured: `${ratio(median(filtered.pg!) / median(filtered.sluice!))} (PostgreSQL ${ms(median(filtered.pg!))})`,
        held: null,
      },
      {
        figure: 'Sorted top-100 (score desc): Sluice ÷ DuckDB direct',
        target: '≤ 1.2×',
        measured: `${ratio(sortRatio)} (${ms(median(sorted.sluice!))} vs ${ms(median(sorted.duckdb!))})`,
        held: sortRatio <= 1.2,
      },
      {
        figure: 'Sorted top-100: PostgreSQL ÷ Sluice',
        target: '(info)',
        measured: `${ratio(median(sorted.pg!) / median(sorted.sluice!))} (PostgreSQL ${ms(median(sorted.pg!))})`,
        held: null,
      },
      {
        figure: '50 concurrent page readers (4 pages each)',
        target: 'no error',
        measured: `${errors.length} errors; ${latencies.length} pages in ${ms(concurrent.ms)}, p50 ${ms(percentile(latencies, 50))}, p95 ${ms(percentile(latencies, 95))}, max ${ms(Math.max(...latencies))}`,
        held: errors.length === 0 && latencies.length === 200,
      },
      {
        figure: 'API event-loop max stall during whole-artifact downloads',
        target: '≤ 50 ms',
        measured: `${ms(worstDownloadStall)} (${downloads.map((d) => `${d.format} ${ms(d.stallMs)}`).join(', ')})`,
        held: worstDownloadStall <= 50 && downloads.every((d) => d.status === 200),
      },
    ];
    const notes = [
      `Artifact: ${ROWS.toLocaleString('en-US')} rows exported in ${ms(made.totalMs)}, ${files.length} Parquet parts, ${mb(made.sizeBytes)}.`,
      `Pages (limit 1000) over HTTP: first ${spread(pages['sluice first']!)}, deep ${spread(pages['sluice deep']!)}. DuckDB direct: first ${spread(pages['duckdb first']!)}, deep (LIMIT 1000 OFFSET 9999000 over all parts) ${spread(pages['duckdb deep']!)}. PostgreSQL (primary key on id): ORDER BY id LIMIT 1000 ${spread(pages['pg first']!)}, ORDER BY id OFFSET 9999000 LIMIT 1000 ${spread(pages['pg deep']!)}.`,
      `Filtered page: Sluice ${spread(filtered.sluice!)}; Sluice's own statement run directly in DuckDB ${spread(filtered['sluice sql direct']!)}; DuckDB direct (SELECT * … WHERE contains(label, 'beef') LIMIT 1000) ${spread(filtered.duckdb!)}; PostgreSQL (LIKE '%beef%' ORDER BY id LIMIT 1000) ${spread(filtered.pg!)}.`,
      `Sorted top-100: Sluice ${spread(sorted.sluice!)}; Sluice's own statement run directly in DuckDB ${spread(sorted['sluice sql direct']!)}; DuckDB direct (SELECT * … ORDER BY score DESC LIMIT 100) ${spread(sorted.duckdb!)}; PostgreSQL (no index on score) ${spread(sorted.pg!)}.`,
      `Every timed Sluice read is a page not served before (the limit drops by one row each round, for DuckDB too), so none comes from Sluice's page cache. DuckDB direct runs in the bench process with threads=2 and no memory limit; Sluice's read workers (2) use threads=2, memory_limit=512MB. Rounds are interleaved (after one warm-up round, except for the sorted reads).`,
      `50 readers: the API's event loop stalled at most ${ms(loop.maxMs)} meanwhile.${errors.length > 0 ? ` Errors: ${[...new Set(errors)].slice(0, 5).join('; ')}` : ''}`,
      `Downloads of the whole artifact: ${downloads.map((d) => `${d.format} ${mb(d.bytes)} in ${ms(d.ms)} (${(d.bytes / 1024 ** 2 / (d.ms / 1000)).toFixed(0)} MB/s, HTTP ${d.status})`).join('; ')}. CSV and JSONL are written by a read worker first, then streamed.`,
    ];
    return { title: 'Reads (artifact of a 10,000,000-row query)', rows, notes };
  } finally {
    duck.closeSync();
    await pg.end();
    await s.stop();
  }
}
