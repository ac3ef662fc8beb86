/**
 * The embedded PostgreSQL as the API will use it: seeded once into a temp
 * directory, reached over TCP with node-postgres, restarted on the same data,
 * and stopped without leaving the process held open. Seeding takes ~20 s, so
 * one seeded directory is shared by every test in this file, in order.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { to as copyTo } from 'pg-copy-streams';
import Cursor from 'pg-cursor';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../../src/datasources/postgres/embedded/start-embedded.ts';
import { openAdminSql, type AdminSql } from '../../helpers/admin-sql.ts';

// Pinned on purpose: the seed is deterministic, so a change here means every
// install would see different numbers.
const COUNTS = { customers: 50_000, products: 1_000, orders: 400_000, order_items: 1_000_369, refunds: 19_541 };
const TABLES = Object.keys(COUNTS) as (keyof typeof COUNTS)[];

let dir: string;
let pg: EmbeddedPostgres | undefined;
let sql: AdminSql;
const firstLog: string[] = [];

async function counts(client: AdminSql): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of TABLES) {
    const [row] = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
    out[table] = row?.n ?? -1;
  }
  return out;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sluice-embedded-'));
  pg = await startEmbeddedPostgres({ dataDir: join(dir, 'pg'), log: (line) => firstLog.push(line) });
  sql = openAdminSql(pg.url);
}, 240_000);

afterAll(async () => {
  await sql?.end();
  await pg?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
}, 60_000);

describe('embedded postgres', () => {
  it('seeds the sample shop on first start and reports progress', async () => {
    expect(pg?.seeded).toBe(true);
    expect(pg?.url).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/);
    expect(firstLog.some((line) => /orders \d+\/400000/.test(line))).toBe(true);
    expect(await counts(sql)).toEqual(COUNTS);
    const [range] = await sql.query<{ first: Date; last: Date }>(`
      SELECT min(created_at) AS first, max(created_at) AS last FROM orders`);
    expect(range?.first.getUTCFullYear()).toBe(2024);
    expect(range?.last.getUTCFullYear()).toBe(2026);
    const [sum] = await sql.query<{ total: string }>('SELECT sum(total)::text AS total FROM orders');
    expect(sum?.total).toBe('189858044.71');
  });

  it('refuses a write inside a READ ONLY transaction', async () => {
    const write = sql.begin((tx) => tx.query("INSERT INTO products VALUES (9999, 'x', 'y', 1)"), 'READ ONLY');
    await expect(write).rejects.toMatchObject({ code: '25006' });
    const [row] = await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM products');
    expect(row?.n).toBe(COUNTS.products);
  });

  it('streams COPY TO STDOUT through node-postgres', async () => {
    const copy = 'COPY (SELECT * FROM orders ORDER BY id LIMIT 5) TO STDOUT (FORMAT csv)';
    const client = await sql.connect();
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of client.query(copyTo(copy))) chunks.push(Buffer.from(chunk as Uint8Array));
    } finally {
      client.release();
    }
    const lines = Buffer.concat(chunks).toString('utf8').trim().split('\n');
    expect(lines).toHaveLength(5);
    expect(lines.map((line) => line.split(',')[0])).toEqual(['1', '2', '3', '4', '5']);
    expect(lines.every((line) => line.split(',').length === 6)).toBe(true);
    const [after] = await sql.query<{ ok: number }>('SELECT 1 AS ok');
    expect(after?.ok).toBe(1);
  });

  it('reads in batches with a cursor', async () => {
    const sizes: number[] = [];
    let expected = 1;
    let contiguous = true;
    const client = await sql.connect();
    try {
      const cursor = client.query(new Cursor<{ id: string }>('SELECT id FROM orders WHERE id <= 25000 ORDER BY id'));
      for (let rows = await cursor.read(1000); rows.length > 0; rows = await cursor.read(1000)) {
        sizes.push(rows.length);
        for (const row of rows) contiguous &&= Number(row.id) === expected++;
      }
      await cursor.close();
    } finally {
      client.release();
    }
    expect(sizes).toEqual(Array.from({ length: 25 }, () => 1000));
    expect(contiguous).toBe(true);
  });

  it('accepts SET LOCAL statement_timeout', async () => {
    const shown = await sql.begin(async (tx) => {
      await tx.query("SET LOCAL statement_timeout = '5s'");
      return (await tx.query<{ statement_timeout: string }>('SHOW statement_timeout')).rows;
    }, 'READ ONLY');
    expect(shown[0]?.statement_timeout).toBe('5s');
  });

  it('keeps its data and does not reseed on a second start', async () => {
    await sql.end();
    await pg?.stop();
    const log: string[] = [];
    pg = await startEmbeddedPostgres({ dataDir: join(dir, 'pg'), log: (line) => log.push(line) });
    sql = openAdminSql(pg.url);
    expect(pg.seeded).toBe(false);
    expect(log.filter((line) => line.startsWith('Seeding'))).toEqual([]);
    expect(await counts(sql)).toEqual(COUNTS);
  }, 60_000);

  it('lets the process exit after stop()', async () => {
    await sql.end();
    await pg?.stop();
    pg = undefined;
    // A child process has nothing else keeping it alive: it exits by itself
    // only if the worker thread is really gone.
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
    const entry = new URL('../../../src/datasources/postgres/embedded/start-embedded.ts', import.meta.url).href;
    const script = `
      const { startEmbeddedPostgres } = await import(${JSON.stringify(entry)});
      const pg = await startEmbeddedPostgres({ dataDir: ${JSON.stringify(join(dir, 'pg'))}, log: () => {} });
      await pg.stop();
      console.log('stopped seeded=' + pg.seeded);`;
    const child = spawn(process.execPath, ['--import', tsx, '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (data: Buffer) => (output += data.toString()));
    child.stderr.on('data', (data: Buffer) => (output += data.toString()));
    const code = await new Promise<number | string>((resolve) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        resolve('still running after 30 s');
      }, 30_000);
      child.on('exit', (exitCode) => {
        clearTimeout(timer);
        resolve(exitCode ?? -1);
      });
    });
    expect({ code, output: output.trim() }).toEqual({ code: 0, output: 'stopped seeded=false' });
  }, 40_000);
});
