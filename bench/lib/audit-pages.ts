/**
 * What the audit trail costs page reads: the same fresh-pages load (a new
 * cursor page every request) against two servers that differ only in the
 * audit (one records every read, the other records nothing), interleaved
 * round by round so both see the same machine load, and compared as the
 * ratio of their medians.
 */
import type { Row } from './report.ts';
import { freshPages } from './fresh-pages.ts';
import { median, ratio } from './stats.ts';
import { runExport, TOKEN, type BenchSluice } from './sluice.ts';
import { auditRecordCost } from './audit-record-cost.ts';

export const AUDIT_ROUNDS = 6;
/** Below this the audit is said to slow page reads (machine noise on a shared 2-core box is a few per cent). */
const HELD_AT = 0.9;

interface Load {
  rps: number;
  p99: number;
  non2xx: number;
  errors: number;
}

export interface AuditPagesResult {
  rows: Row[];
  notes: string[];
}

/** `on` records the audit and holds `onArtifact`, made by `exportSql`; `off` was started without it and gets its own. */
export async function auditPages(
  on: BenchSluice,
  onArtifact: string,
  off: BenchSluice,
  exportSql: string,
  rows: number,
  page: number,
  load: (url: string, options: { method: 'POST'; body: () => string; headers: Record<string, string> }) => Promise<Load>,
  log: (line: string) => void,
): Promise<AuditPagesResult> {
  log('http: audit off: exporting the same artifact for the baseline server');
  const offArtifact = (await runExport(off, exportSql)).artifactId;
  const headers = { 'x-token': TOKEN, 'content-type': 'application/json' };
  const arms = [
    { name: 'off', s: off, artifact: offArtifact, loads: [] as Load[] },
    { name: 'on', s: on, artifact: onArtifact, loads: [] as Load[] },
  ];
  for (const arm of arms) await arm.s.api('POST', `/api/artifacts/${arm.artifact}/aggregate`, { metrics: [{ fn: 'count' }] });
  for (let round = 1; round <= AUDIT_ROUNDS; round++) {
    for (const arm of round % 2 === 1 ? arms : [...arms].reverse()) {
      log(`http: fresh cursor pages, audit ${arm.name}, round ${round} of ${AUDIT_ROUNDS}`);
      const fresh = freshPages(arm.s.cursorKey, arm.artifact, rows, page);
      arm.loads.push(await load(`${arm.s.sluice.url}/api/artifacts/${arm.artifact}/read`, { method: 'POST', body: () => JSON.stringify(fresh()), headers }));
    }
  }
  const [offArm, onArm] = arms as [(typeof arms)[0], (typeof arms)[0]];
  const offRps = median(offArm.loads.map((l) => l.rps));
  const onRps = median(onArm.loads.map((l) => l.rps));
  const failures = [...offArm.loads, ...onArm.loads].reduce((n, l) => n + l.errors + l.non2xx, 0);
  const audited = (await on.api('GET', '/api/admin/audit?action=read&limit=1')).body;
  const cost = await auditRecordCost(20_000);
  return {
    rows: [
      {
        figure: `Cursor pages, each one different, audit on ÷ audit off (interleaved, ${AUDIT_ROUNDS} rounds each, medians)`,
        target: `≥ ${HELD_AT.toFixed(2)}×`,
        measured: `${ratio(onRps / offRps)} (${onRps.toFixed(0)} vs ${offRps.toFixed(0)}/s), p99 ${median(onArm.loads.map((l) => l.p99))} ms vs ${median(offArm.loads.map((l) => l.p99))} ms`,
        held: onRps / offRps >= HELD_AT && failures === 0,
      },
      {
        figure: 'Audit entry cost: record() on the request path; the batched write to a SQLite catalog, off it (20,000 entries)',
        target: '(info)',
        measured: `${cost.recordUs.toFixed(1)} µs; ${cost.flushUs.toFixed(1)} µs per entry`,
        held: null,
      },
    ],
    notes: [
      `Audit on vs off, req/s per round: on ${onArm.loads.map((l) => l.rps.toFixed(0)).join(', ')}; off ${offArm.loads.map((l) => l.rps.toFixed(0)).join(', ')} (errors and non-2xx: ${failures}). The audited server recorded every read (its newest: ${JSON.stringify(audited?.data?.items?.[0]?.route ?? null)}).`,
    ],
  };
}
