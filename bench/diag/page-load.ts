/**
 * Where a page read's time goes under load: one artifact (2M rows, 10 parts),
 * 50 connections of autocannon for 10 s on one kind of read, nothing else.
 * Run it under the profiler and summarise every thread:
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/diag/page-load.ts [first|cursor|distinct]
 *   npx tsx bench/diag/profile-summary.ts /tmp/prof
 */
import autocannon from 'autocannon';
import { CursorCodec, readShape } from '../../src/artifacts/cursor.ts';
import { PRINCIPAL, runExport, startBenchSluice, TOKEN } from '../lib/sluice.ts';

const ROWS = 2_000_000;
const kind = process.argv[2] ?? 'first';
const s = await startBenchSluice();
try {
  const made = await runExport(s, `select g::int8 as id, md5(g::text) as h, (g % 1000)::int4 as score, now()::timestamptz as at from generate_series(1, ${ROWS}) g`);
  const codec = new CursorCodec(s.cursorKey);
  const at = (offset: number) => codec.encode(made.artifactId, PRINCIPAL, readShape({}), offset);
  const bodies = { first: () => ({ limit: 100 }), cursor: () => ({ limit: 100, cursor: at(1_500_000) }) };
  let next = 0;
  const body = kind === 'distinct' ? () => ({ limit: 100, cursor: at((next++ * 7919 * 100) % (ROWS - 100)) }) : bodies[kind as keyof typeof bodies];
  // Every part is hashed the first time this process hands it out: an aggregate leases them all first.
  await s.api('POST', `/api/artifacts/${made.artifactId}/aggregate`, { metrics: [{ fn: 'count' }] });
  await s.api('POST', `/api/artifacts/${made.artifactId}/read`, body());
  const result = await autocannon({
    url: `${s.sluice.url}/api/artifacts/${made.artifactId}/read`,
    connections: 50,
    duration: 10,
    method: 'POST',
    headers: { 'x-token': TOKEN, 'content-type': 'application/json' },
    requests: [{ setupRequest: (req: Record<string, unknown>) => ({ ...req, body: JSON.stringify(body()) }) }] as never,
  });
  console.log(`${kind}: ${result.requests.average.toFixed(0)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, ${result.errors} errors, ${result.non2xx} non-2xx`);
} finally {
  await s.stop();
}
