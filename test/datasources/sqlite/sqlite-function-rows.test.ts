/**
 * Rows written inside SQLite's step through a row function come out as the
 * statement's own iteration gives them: in its ORDER BY's order, stopped at
 * exactly the fetch limit, with a mixed-class value failing the statement
 * as it does elsewhere; a statement that cannot be a CTE's body is left to
 * the usual iteration, and the function is out of reach of the statement.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openReadOnly } from '../../../src/datasources/sqlite/engine/open-connection.ts';
import { sendRowsThroughFunction, throughRowFunction } from '../../../src/datasources/sqlite/export/function-rows.ts';
import { runStatement } from '../../../src/datasources/sqlite/export/run-statement.ts';
import type { Frame, StatementRequest } from '../../../src/datasources/sqlite/export/statement-protocol.ts';
import { planColumn } from '../../../src/datasources/sqlite/sqlite-column-types.ts';
import { SqliteTestFile } from './sqlite-test-file.ts';

const file = new SqliteTestFile('function-rows.db');
const ROWS = 5_000;

beforeAll(async () => {
  const db = await file.writable();
  db.exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, label TEXT, score REAL, mixed REAL);
    WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ${ROWS})
    INSERT INTO t SELECT n, 'l' || ((n * 7919) % ${ROWS}), n / 8.0, CASE WHEN n = 4321 THEN 'text' ELSE n END FROM g;`);
  db.close();
});
afterAll(() => file.remove());

/** Runs one statement as the statement process does; returns its frames and the CSV of its rows frames. */
async function run(sql: string, fetchLimit = 1_000_000, params: (string | number)[] = []): Promise<{ frames: Frame[]; csv: string }> {
  const frames: Frame[] = [];
  const request: StatementRequest = { file: file.file, sql, params, fetchLimit, resultTypes: null, busyTimeoutMs: 1_000 };
  await runStatement(request, { send: async (frame) => void frames.push(frame), stopped: () => false });
  const csv = frames.flatMap((f) => (f.kind === 'rows' ? [Buffer.from(f.bytes).toString()] : [])).join('');
  return { frames, csv };
}

async function iterated(sql: string, params: (string | bigint)[] = []): Promise<string> {
  const db = await openReadOnly(file.file, { busyTimeoutMs: 1_000 });
  try {
    const lines: string[] = [];
    const rows = db.prepare(sql).rows(params);
    for (let step = rows.next(); step.done !== true; step = rows.next()) lines.push(`${step.value.map(String).join(',')}\n`);
    return lines.join('');
  } finally {
    db.close();
  }
}

describe('rows through a row function', () => {
  it('keeps the statement order after its ORDER BY, its LIMIT and its bound values', async () => {
    const sql = 'SELECT id, label FROM t WHERE id > ?1 ORDER BY label DESC, id LIMIT 3000 -- a trailing comment';
    const { csv, frames } = await run(sql, 1_000_000, [10]);
    expect(csv).toBe(await iterated(sql, [10n]));
    expect(frames.at(-1)).toEqual({ kind: 'end' });
  });

  it('stops at exactly the fetch limit', async () => {
    const { csv } = await run('SELECT id FROM t ORDER BY id DESC', 1_234);
    const ids = csv.trimEnd().split('\n');
    expect(ids).toHaveLength(1_234);
    expect(ids.at(-1)).toBe(String(ROWS - 1_233));
  });

  it('fails on a value of another class at its row, naming the column', async () => {
    const { frames } = await run('SELECT id, mixed FROM t ORDER BY id');
    const failed = frames.at(-1);
    expect(failed?.kind).toBe('failed');
    expect(failed?.kind === 'failed' && failed.failure.kind === 'contract' && failed.failure.message).toMatch(/"mixed" holds a TEXT value/);
  });

  it('is taken for a query, and left for a statement that cannot be a CTE body, which still runs', async () => {
    const db = await openReadOnly(file.file, { busyTimeoutMs: 1_000 });
    const sent: Frame[] = [];
    const io = { send: async (f: Frame) => void sent.push(f), stopped: () => false };
    const timing = { frameBytes: 1 << 20, frameMs: 50, clockEveryRows: 64 };
    const plans = [planColumn('id', 'INTEGER', 'null')];
    try {
      const taken = await sendRowsThroughFunction(db, { sql: 'SELECT id FROM t', fetchLimit: 10 }, [], plans, timing, io);
      // bun:sqlite has no SQL functions of JavaScript; the others do.
      expect(taken).toBe(db.library !== 'bun:sqlite');
      sent.length = 0;
      expect(await sendRowsThroughFunction(db, { sql: "PRAGMA table_info('t')", fetchLimit: 10 }, [], plans, timing, io)).toBe(false);
      expect(sent).toEqual([]);
    } finally {
      db.close();
    }
    const pragma = await run("PRAGMA table_info('t')");
    expect(pragma.csv.split('\n')[0]).toBe('0,id,INTEGER,0,,1');
  });

  it('reads the statement as the body of a CTE, through a subquery with a LIMIT', () => {
    expect(throughRowFunction('SELECT 1', 2, 'f')).toBe('WITH sluice_rows(c0, c1) AS (SELECT 1\n) SELECT 1 FROM (SELECT * FROM sluice_rows LIMIT -1) WHERE f(c0, c1)');
  });
});
