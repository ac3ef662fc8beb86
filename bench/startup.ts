/**
 * Start-up readiness with an empty store and with 20,000 artifacts: the time
 * from spawning the compiled `src/index.ts` (as `npm start` runs it) to GET /readyz answering 200, median of
 * several runs each. Start-up must not do work that grows with the store, so
 * the ratio should stay near 1 (target: within 1.5).
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHash } from 'node:crypto';
import { DuckDBInstance } from '@duckdb/node-api';
import { CATALOG_SCHEMA } from '../src/catalog/sqlite/sqlite-schema-v1.ts';
import { openSqlite } from '../src/runtime/sqlite.ts';
import { compiled } from './lib/child.ts';
import type { Section } from './lib/report.ts';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ENTRY = fileURLToPath(new URL('../src/index.ts', import.meta.url));
const RUNS = 5;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** A store holding `count` committed artifacts, each with bytes of its own. */
export async function populate(dataDir: string, count: number): Promise<void> {
  const root = join(dataDir, 'artifacts');
  mkdirSync(join(root, 'objects'), { recursive: true });
  const sample = join(dataDir, 'sample.parquet');
  const duck = await (await DuckDBInstance.create(':memory:')).connect();
  await duck.run(`COPY (SELECT range::BIGINT AS id FROM range(100)) TO '${sample}' (FORMAT parquet)`);
  const db = openSqlite(join(root, 'catalog.sqlite'));
  db.exec(CATALOG_SCHEMA);
  const columns = JSON.stringify([{ name: 'id', type: 'int8', storageName: 'id', storage: 'int8', duckType: 'BIGINT' }]);
  const now = new Date();
  const expires = new Date(now.getTime() + 86_400_000).toISOString();
  db.transaction(() => {
    const blob = db.prepare('INSERT INTO blobs (hash, location, parts, size_bytes, refs) VALUES (?, ?, ?, ?, 1)');
    const artifact = db.prepare(`INSERT INTO artifacts (id, principal, session_id, hash, state, datasource, sql, columns, row_count, size_bytes, coverage, bounded_by, created_at, expires_at)
      VALUES (?, 'admin', 'default', ?, 'COMMITTED', 'default', 'select 1', ?, 100, 500, 'COMPLETE', NULL, ?, ?)`);
    for (let i = 0; i < count; i++) {
      const hash = createHash('sha256').update(String(i)).digest('hex');
      const location = join(hash.slice(0, 2), hash);
      mkdirSync(join(root, 'objects', location), { recursive: true });
      copyFileSync(sample, join(root, 'objects', location, 'part-00000.parquet'));
      blob.run(hash, location, JSON.stringify([{ name: 'part-00000.parquet', rows: 100, bytes: 500, sha256: hash }]), 500);
      artifact.run(`art_bench${i}`, hash, columns, now.toISOString(), expires);
    }
    db.prepare('UPDATE workspace_usage SET artifacts = ?, blobs = ?, physical_bytes = ? WHERE id = 1').run(count, count, count * 500);
    db.prepare("INSERT INTO principal_usage (principal, artifacts, logical_bytes) VALUES ('admin', ?, ?)").run(count, count * 500);
  })();
  db.close();
}

async function timeToReady(dataDir: string, port: number): Promise<number> {
  const entry = await compiled(ENTRY);
  const started = performance.now();
  const child = spawn(process.execPath, [entry], {
    env: { ...process.env, SLUICE_DATA_DIR: dataDir, DATABASE_URL, PORT: String(port) },
    stdio: 'ignore',
  });
  try {
    for (;;) {
      try {
        const r = await fetch(`http://127.0.0.1:${port}/readyz`);
        if (r.status === 200) return performance.now() - started;
      } catch {
        // Not listening yet.
      }
      if (performance.now() - started > 60_000) throw new Error('server did not become ready');
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
}

export async function benchStartup(): Promise<{ emptyMs: number; fullMs: number; ratio: number }> {
  const empty = mkdtempSync(join(tmpdir(), 'sluice-bench-empty-'));
  const full = mkdtempSync(join(tmpdir(), 'sluice-bench-full-'));
  try {
    await populate(full, 20_000);
    const emptyTimes: number[] = [];
    const fullTimes: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      // Interleaved, so drift on a shared machine hits both sides alike.
      emptyTimes.push(await timeToReady(empty, 18_900 + i));
      fullTimes.push(await timeToReady(full, 18_950 + i));
    }
    const emptyMs = median(emptyTimes);
    const fullMs = median(fullTimes);
    return { emptyMs, fullMs, ratio: fullMs / emptyMs };
  } finally {
    rmSync(empty, { recursive: true, force: true });
    rmSync(full, { recursive: true, force: true });
  }
}

/** The start-up part of `npm run bench`. */
export async function startupSection(log: (line: string) => void): Promise<Section> {
  log('startup: readiness with 0 and 20,000 artifacts');
  const r = await benchStartup();
  return {
    title: 'Start-up readiness (spawn to GET /readyz 200)',
    rows: [{ figure: 'Readiness with 20,000 artifacts ÷ with none', target: '≤ 1.5×', measured: `${r.ratio.toFixed(2)}× (${r.fullMs.toFixed(0)} ms vs ${r.emptyMs.toFixed(0)} ms)`, held: r.ratio <= 1.5 }],
    notes: [`Median of ${RUNS} interleaved runs each, DATABASE_URL ${DATABASE_URL.replace(/\/\/[^@]*@/, '//')}.`],
  };
}

if (process.argv[1]?.endsWith('startup.ts')) {
  const result = await benchStartup();
  console.log(`readiness: empty ${result.emptyMs.toFixed(0)} ms, 20,000 artifacts ${result.fullMs.toFixed(0)} ms, ratio ${result.ratio.toFixed(2)} (target <= 1.5)`);
}
