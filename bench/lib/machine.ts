/** What the figures were measured on: cores, memory, runtime and database versions, package versions. */
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { loadavg, totalmem } from 'node:os';
import { DuckDBInstance } from '@duckdb/node-api';
import { openAdminSql } from '../../test/helpers/admin-sql.ts';
import { DATABASE_URL } from './tables.ts';

export interface MachineInfo {
  date: string;
  nproc: number;
  memory: string;
  node: string;
  postgres: string;
  duckdbNodeApi: string;
  duckdb: string;
  /** node-postgres, which the datasource driver and the catalog run on. */
  pg: string;
  loadavg: string;
  /** Which code was measured: the commit, uncommitted changes, and the export/read settings read from the source. */
  source: string;
}

function sourceState(): string {
  const root = new URL('../..', import.meta.url);
  const git = (...args: string[]) => {
    try {
      return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return '';
    }
  };
  const head = git('rev-parse', '--short', 'HEAD') || 'unknown';
  const dirty = git('status', '--porcelain', '--', 'src', 'workers').split('\n').filter(Boolean).length;
  const read = (path: string) => {
    try {
      return readFileSync(new URL(path, root), 'utf8');
    } catch {
      return '';
    }
  };
  const partBytes = /const PART_BYTES = ([^;]+);/.exec(read('src/worker/export/stream-to-parts.ts'))?.[1] ?? '?';
  const workers = [...read('src/server.ts').matchAll(/(\w+)\s*(?::\s*QueryWorkerData)?\s*=\s*\{\s*duckdbThreads:\s*(\d+),\s*duckdbMemoryLimit:\s*'([^']+)'/g)]
    .map((m) => `${m[1]} threads=${m[2]} memory_limit=${m[3]}`)
    .join('; ');
  return `commit ${head}${dirty > 0 ? ` with ${dirty} uncommitted file(s) under src/ and workers/` : ''}; PART_BYTES = ${partBytes}; DuckDB in workers: ${workers || '?'}; child processes run src/ compiled to JavaScript (scripts/build.ts), as \`npm start\` does`;
}

/** The installed version (node_modules/<name>/package.json; some packages do not export that path). */
function packageVersion(name: string): string {
  const file = new URL(`../../node_modules/${name}/package.json`, import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

export async function machineInfo(): Promise<MachineInfo> {
  const sql = openAdminSql(DATABASE_URL);
  const [row] = await sql.query<{ v: string }>("SELECT current_setting('server_version') AS v");
  await sql.end();
  const duck = await (await DuckDBInstance.create(':memory:')).connect();
  const version = (await duck.runAndReadAll('SELECT version()')).getRowsJS()[0]?.[0];
  duck.closeSync();
  return {
    date: new Date().toISOString().replace('T', ' ').slice(0, 16) + ' UTC',
    nproc: Number(execFileSync('nproc', { encoding: 'utf8' }).trim()),
    memory: `${(totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    node: process.version,
    postgres: `PostgreSQL ${row?.v ?? '?'}`,
    duckdbNodeApi: packageVersion('@duckdb/node-api'),
    duckdb: String(version),
    pg: packageVersion('pg'),
    loadavg: loadavg().map((l) => l.toFixed(2)).join(' '),
    source: sourceState(),
  };
}
