/**
 * Reads of a stored artifact over HTTP: paging, projection, every filter op,
 * sort with stable ties, cursors (following, binding, tampering, expiry),
 * artifact metadata, listing and deletion. PostgreSQL answers the same
 * question over the same table as ground truth, so a wrong row, a dropped
 * row or a repeated row shows up as a difference.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CURSOR_TTL_MS, CursorCodec, readShape } from '../../src/artifacts/cursor.ts';
import { createArtifact, startTestServer, TOKENS, type TestServer } from '../helpers/server.ts';

const SCHEMA = 'rtest_read';
const TABLE = `${SCHEMA}.t`;
const ROWS = 2500;
const SQL = `SELECT * FROM ${TABLE} ORDER BY id`;

let server: TestServer;
let artifactId: string;

interface ReadBody {
  cursor?: string | undefined;
  limit?: number | undefined;
  columns?: string[] | undefined;
  filters?: { column: string; op: string; value?: unknown }[] | undefined;
  sort?: { column: string; direction: 'asc' | 'desc' }[] | undefined;
}

function read(body: ReadBody, token: string = TOKENS.admin, id: string = artifactId) {
  return server.request(`/api/artifacts/${id}/read`, { body, token });
}

/** Follows nextCursor from the first page to the end; fails the test on any error page. */
async function readAll(body: ReadBody, id: string = artifactId): Promise<{ rows: unknown[][]; pages: number }> {
  const rows: unknown[][] = [];
  let cursor: string | undefined;
  let pages = 0;
  for (;;) {
    const r = await read(cursor === undefined ? body : { ...body, cursor }, TOKENS.admin, id);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    pages++;
    expect(r.body.data.rows.length).toBeLessThanOrEqual(body.limit ?? 100);
    rows.push(...r.body.data.rows);
    if (r.body.data.nextCursor === null) return { rows, pages };
    // A page that announces more rows must not be short; otherwise a client cannot tell the end.
    expect(r.body.data.rows.length).toBe(body.limit ?? 100);
    cursor = r.body.data.nextCursor;
    expect(pages).toBeLessThan(1000);
  }
}

/** Ids from PostgreSQL for the same WHERE; artifact order is id order, so id is the last sort key. */
async function truthIds(where: string, params: unknown[] = [], order = 'id'): Promise<number[]> {
  const rows = await server.sql.query(`SELECT id FROM ${TABLE} WHERE ${where} ORDER BY ${order}`, params as never[]);
  return rows.map((r) => r.id as number);
}

const submit = (sql: string, token: string = TOKENS.admin): Promise<string> => createArtifact(server, sql, token);

beforeAll(async () => {
  server = await startTestServer();
  await server.sql.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await server.sql.query(`CREATE SCHEMA ${SCHEMA}`);
  // Duplicate keys everywhere (grp has 7 values, name 40) and NULLs in every column but id.
  await server.sql.query(`
    CREATE TABLE ${TABLE} (
      id int4 PRIMARY KEY,
      grp int4,
      name text,
      amount numeric(12,2),
      big int8,
      flag bool,
      ts timestamptz,
      d date,
      f float8
    )`);
  await server.sql.query(`
    INSERT INTO ${TABLE}
    SELECT i,
           CASE WHEN i % 11 = 0 THEN NULL ELSE i % 7 END,
           CASE WHEN i % 13 = 0 THEN NULL WHEN i % 97 = 0 THEN 'a_b%c' || (i % 3) ELSE 'n' || (i % 40) END,
           CASE WHEN i % 17 = 0 THEN NULL ELSE ((i * 37) % 1000) / 4.0 END,
           CASE WHEN i % 19 = 0 THEN NULL ELSE 9007199254740993 + (i % 5) END,
           CASE WHEN i % 23 = 0 THEN NULL ELSE i % 3 = 0 END,
           CASE WHEN i % 29 = 0 THEN NULL ELSE timestamptz '2026-01-01 00:00:00+00' + (i % 30) * interval '1 hour 0.123456 second' END,
           CASE WHEN i % 31 = 0 THEN NULL ELSE date '2026-01-01' + (i % 45) END,
           CASE WHEN i % 37 = 0 THEN NULL ELSE (i % 10) / 4.0 END
      FROM generate_series(1, ${ROWS}) AS i`);
  artifactId = await submit(SQL);
});

afterAll(async () => {
  await server?.sql.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await server?.stop();
});

describe('pages and projection', () => {
  it('answers 100 rows by default, every column, in artifact order, with a cursor', async () => {
    const r = await read({});
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, errorCode: null });
    expect(r.body.data.columns.map((c: { name: string }) => c.name)).toEqual(['id', 'grp', 'name', 'amount', 'big', 'flag', 'ts', 'd', 'f']);
    expect(r.body.data.rows).toHaveLength(100);
    expect(r.body.data.rows.map((row: unknown[]) => row[0])).toEqual(await truthIds('id <= 100'));
    expect(typeof r.body.data.nextCursor).toBe('string');
  });

  it('encodes values as the contract says', async () => {
    const r = await read({ filters: [{ column: 'id', op: 'in', value: [25, 13] }] });
    expect(r.body.data.rows).toEqual([
      [13, 6, null, '120.25', '9007199254740996', false, '2026-01-01T13:00:01.604928Z', '2026-01-14', 0.75],
      [25, 4, 'n25', '231.25', '9007199254740993', false, '2026-01-02T01:00:03.086400Z', '2026-01-26', 1.25],
    ]);
  });

  it('accepts limit 1 and 1000 and refuses 0 and 1001', async () => {
    expect((await read({ limit: 1 })).body.data.rows).toHaveLength(1);
    expect((await read({ limit: 1000 })).body.data.rows).toHaveLength(1000);
    for (const limit of [0, 1001]) {
      const r = await read({ limit });
      expect(r.status).toBe(400);
      expect(r.body.errorCode).toBe('VALIDATION_ERROR');
      expect(r.body.error.message).toContain('limit');
    }
  });

  it('projects the named columns in the requested order', async () => {
    const r = await read({ columns: ['name', 'id', 'amount'], limit: 3 });
    expect(r.body.data.columns).toEqual([
      { name: 'name', type: 'text' },
      { name: 'id', type: 'int4' },
      { name: 'amount', type: 'numeric' },
    ]);
    expect(r.body.data.rows).toEqual([
      ['n1', 1, '9.25'],
      ['n2', 2, '18.50'],
      ['n3', 3, '27.75'],
    ]);
  });

  it('cuts plain pages from windows that give every kind, NULLs and int8 past 2^53 included, as a statement encodes it', async () => {
    const { cursorKey } = JSON.parse(readFileSync(join(server.dataDir, 'secrets.json'), 'utf8')) as { cursorKey: string };
    const codec = new CursorCodec(cursorKey);
    // Every column but the numeric one: the kinds a read worker holds as arrays (column-window.ts).
    const columns = ['id', 'grp', 'name', 'big', 'flag', 'ts', 'd', 'f'];
    for (const offset of [0, 1234, ROWS - 60]) {
      // A cursor at the offset, as a fresh reader brings it: the page is cut from a window.
      const cursor = offset === 0 ? undefined : codec.encode(artifactId, 'admin', readShape({ columns }), offset);
      const plain = await read({ columns, limit: 100, cursor });
      // The same rows by a filter, which DuckDB reads and encodes itself.
      const filtered = await read({ columns, filters: [{ column: 'id', op: 'between', value: [offset + 1, offset + 100] }], limit: 100 });
      expect(plain.status, JSON.stringify(plain.body)).toBe(200);
      expect(plain.body.data.rows.length).toBe(Math.min(100, ROWS - offset));
      expect(plain.body.data.rows, `offset ${offset}`).toEqual(filtered.body.data.rows);
    }
  });

  it('refuses an unknown column in columns, filters and sort', async () => {
    for (const body of [
      { columns: ['id', 'nope'] },
      { filters: [{ column: 'nope', op: 'eq', value: 1 }] },
      { sort: [{ column: 'nope', direction: 'asc' as const }] },
    ]) {
      const r = await read(body);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ success: false, data: null, errorCode: 'VALIDATION_ERROR' });
      expect(r.body.error.message).toContain('nope');
    }
  });
});

describe('filters', () => {
  // [request filter(s), PostgreSQL WHERE, its bound values]
  const cases: [string, ReadBody['filters'], string, unknown[]][] = [
    ['eq int', [{ column: 'grp', op: 'eq', value: 3 }], 'grp = $1', [3]],
    ['eq text', [{ column: 'name', op: 'eq', value: 'n7' }], 'name = $1', ['n7']],
    ['eq bool', [{ column: 'flag', op: 'eq', value: true }], 'flag = $1', [true]],
    ['eq int8 beyond 2^53', [{ column: 'big', op: 'eq', value: '9007199254740995' }], 'big = $1', ['9007199254740995']],
    ['ne int', [{ column: 'grp', op: 'ne', value: 3 }], 'grp <> $1', [3]],
    ['ne text', [{ column: 'name', op: 'ne', value: 'n7' }], 'name <> $1', ['n7']],
    ['lt numeric (string)', [{ column: 'amount', op: 'lt', value: '100.25' }], 'amount < $1', ['100.25']],
    ['lte numeric (number)', [{ column: 'amount', op: 'lte', value: 100.25 }], 'amount <= $1', ['100.25']],
    // 9.249 must not be rounded to the column's two decimals (9.25) before it is compared.
    ['lte numeric with more digits than the column', [{ column: 'amount', op: 'lte', value: '9.249' }], 'amount <= $1', ['9.249']],
    ['gt numeric in exponent form', [{ column: 'amount', op: 'gt', value: '1.5e2' }], 'amount > $1', ['150']],
    ['gt int8', [{ column: 'big', op: 'gt', value: '9007199254740994' }], 'big > $1', ['9007199254740994']],
    ['gte timestamptz', [{ column: 'ts', op: 'gte', value: '2026-01-01T12:00:01.481472Z' }], 'ts >= $1', ['2026-01-01T12:00:01.481472Z']],
    ['lt date', [{ column: 'd', op: 'lt', value: '2026-01-10' }], 'd < $1', ['2026-01-10']],
    ['gt float', [{ column: 'f', op: 'gt', value: 1.25 }], 'f > $1', [1.25]],
    ['gte text', [{ column: 'name', op: 'gte', value: 'n35' }], 'name COLLATE "C" >= $1', ['n35']],
    ['in int', [{ column: 'grp', op: 'in', value: [1, 2] }], 'grp IN (1, 2)', []],
    ['in text', [{ column: 'name', op: 'in', value: ['n1', 'n2', 'zzz'] }], `name IN ('n1', 'n2', 'zzz')`, []],
    ['not_in int', [{ column: 'grp', op: 'not_in', value: [1, 2] }], 'grp NOT IN (1, 2)', []],
    ['not_in text', [{ column: 'name', op: 'not_in', value: ['n1', 'n2'] }], `name NOT IN ('n1', 'n2')`, []],
    ['between numeric', [{ column: 'amount', op: 'between', value: ['10', 50.5] }], 'amount BETWEEN 10 AND 50.5', []],
    ['between date', [{ column: 'd', op: 'between', value: ['2026-01-05', '2026-01-07'] }], `d BETWEEN '2026-01-05' AND '2026-01-07'`, []],
    ['is_null int', [{ column: 'grp', op: 'is_null' }], 'grp IS NULL', []],
    ['is_null numeric', [{ column: 'amount', op: 'is_null' }], 'amount IS NULL', []],
    ['is_not_null text', [{ column: 'name', op: 'is_not_null' }], 'name IS NOT NULL', []],
    ['is_not_null timestamptz', [{ column: 'ts', op: 'is_not_null' }], 'ts IS NOT NULL', []],
    // LIKE wildcards in the value are literal characters.
    ['contains text', [{ column: 'name', op: 'contains', value: '_b%' }], 'strpos(name, $1) > 0', ['_b%']],
    ['contains text digits', [{ column: 'name', op: 'contains', value: '3' }], 'strpos(name, $1) > 0', ['3']],
    ['starts_with text', [{ column: 'name', op: 'starts_with', value: 'n1' }], 'starts_with(name, $1)', ['n1']],
    ['starts_with int', [{ column: 'id', op: 'starts_with', value: '12' }], 'starts_with(id::text, $1)', ['12']],
    [
      'several filters AND-ed',
      [
        { column: 'grp', op: 'in', value: [0, 1, 2] },
        { column: 'amount', op: 'gte', value: '100' },
        { column: 'name', op: 'is_not_null' },
      ],
      'grp IN (0, 1, 2) AND amount >= 100 AND name IS NOT NULL',
      [],
    ],
  ];

  for (const [label, filters, where, params] of cases) {
    it(`${label} matches PostgreSQL`, async () => {
      const expected = await truthIds(where, params);
      const { rows } = await readAll({ columns: ['id'], filters, limit: 1000 });
      expect(rows.map((r) => r[0])).toEqual(expected);
    });
  }

  it('the cases above are not trivially empty or complete', async () => {
    // A filter that matched nothing (or everything) would prove little about the op.
    for (const [, , where, params] of cases) {
      const n = (await truthIds(where, params)).length;
      expect(n, where).toBeGreaterThan(0);
      expect(n, where).toBeLessThan(ROWS);
    }
  });

  it('compares a decimal value exactly, never rounded to the column\u2019s scale', async () => {
    const near = await read({ columns: ['id'], filters: [{ column: 'amount', op: 'eq', value: '9.251' }] });
    expect(near.body.data.rows).toEqual([]);
    const exact = await read({ columns: ['id'], filters: [{ column: 'amount', op: 'in', value: ['9.250', 9.25] }], limit: 1000 });
    expect(exact.body.data.rows.map((r: unknown[]) => r[0])).toEqual(await truthIds('amount = 9.25'));
    expect(exact.body.data.rows.length).toBeGreaterThan(0);
    // Far beyond the column's precision, yet an honest comparison: every non-NULL amount is below it.
    const { rows } = await readAll({ columns: ['id'], filters: [{ column: 'amount', op: 'lt', value: '1e20' }], limit: 1000 });
    expect(rows.map((r) => r[0])).toEqual(await truthIds('amount IS NOT NULL'));
  });

  it('binds values: a quoted injection attempt matches nothing and breaks nothing', async () => {
    const evil = "x' OR 1=1 --";
    for (const op of ['eq', 'contains', 'starts_with', 'gte']) {
      const r = await read({ filters: [{ column: 'name', op, value: evil }], columns: ['id'] });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      // gte 'x...' is a real comparison: no name sorts at or after "x'".
      expect(r.body.data.rows).toEqual([]);
    }
    const injectedColumn = await read({ filters: [{ column: 'id" IS NOT NULL OR "id', op: 'is_null' }] });
    expect(injectedColumn.body.errorCode).toBe('VALIDATION_ERROR');
    expect((await read({ limit: 1000 })).body.data.rows).toHaveLength(1000);
    const counted = await server.sql.query(`SELECT count(*)::int AS n FROM ${TABLE}`);
    expect(counted[0]!.n).toBe(ROWS);
  });

  it('answers UNSUPPORTED_CAPABILITY for an unknown op', async () => {
    const r = await read({ filters: [{ column: 'name', op: 'like', value: 'n%' }] });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, data: null, errorCode: 'UNSUPPORTED_CAPABILITY' });
    expect(r.body.error.message).toContain('like');
  });

  it('answers VALIDATION_ERROR naming the column for a value of the wrong type', async () => {
    const wrong: ReadBody['filters'][] = [
      [{ column: 'grp', op: 'eq', value: 'abc' }],
      [{ column: 'grp', op: 'eq', value: 1.5 }],
      [{ column: 'grp', op: 'eq', value: null }],
      [{ column: 'grp', op: 'in', value: [1, 'two'] }],
      [{ column: 'grp', op: 'in', value: 3 }],
      [{ column: 'grp', op: 'between', value: [1] }],
      [{ column: 'grp', op: 'gt', value: '3000000000' }],
      [{ column: 'big', op: 'gt', value: '99999999999999999999' }],
      [{ column: 'amount', op: 'lt', value: 'cheap' }],
      [{ column: 'amount', op: 'lt', value: '1e40' }],
      [{ column: 'amount', op: 'eq', value: '0.1234567890123456789012345678901234567' }],
      [{ column: 'flag', op: 'eq', value: 'yes' }],
      [{ column: 'd', op: 'gt', value: 'tomorrow' }],
      [{ column: 'd', op: 'gt', value: '2026-13-45' }],
      [{ column: 'ts', op: 'lt', value: '2026-02-30T00:00:00Z' }],
      [{ column: 'name', op: 'contains', value: 5 }],
    ];
    for (const filters of wrong) {
      const r = await read({ filters });
      expect(r.status, JSON.stringify(filters)).toBe(400);
      expect(r.body.errorCode, JSON.stringify(filters)).toBe('VALIDATION_ERROR');
      expect(r.body.error.message).toContain(`"${filters![0]!.column}"`);
    }
  });
});

describe('sort', () => {
  it('sorts by several keys, NULLs last, ties in artifact row order', async () => {
    const sort = [
      { column: 'grp', direction: 'asc' as const },
      { column: 'name', direction: 'desc' as const },
    ];
    const expected = await truthIds('true', [], 'grp ASC NULLS LAST, name COLLATE "C" DESC NULLS LAST, id');
    const { rows } = await readAll({ columns: ['id', 'grp', 'name'], sort, limit: 1000 });
    expect(rows.map((r) => r[0])).toEqual(expected);
    // The keys really have ties, so the id order inside them is what is being checked.
    expect(new Set(rows.map((r) => `${r[1]}|${r[2]}`)).size).toBeLessThan(ROWS / 5);
  });

  it('sorts numeric, timestamptz and int8 descending like PostgreSQL', async () => {
    for (const column of ['amount', 'ts', 'big']) {
      const expected = await truthIds('true', [], `${column} DESC NULLS LAST, id`);
      const { rows } = await readAll({ columns: ['id'], sort: [{ column, direction: 'desc' }], limit: 1000 });
      expect(rows.map((r) => r[0]), column).toEqual(expected);
    }
  });
});

describe('cursors', () => {
  const walks: [string, ReadBody, string, string][] = [
    ['no filter or sort, default page', {}, 'true', 'id'],
    ['a filter', { filters: [{ column: 'grp', op: 'ne', value: 0 }], limit: 250 }, 'grp <> 0', 'id'],
    ['a sort', { sort: [{ column: 'amount', direction: 'asc' }], limit: 333 }, 'true', 'amount NULLS LAST, id'],
    [
      'a filter and a sort',
      { filters: [{ column: 'name', op: 'starts_with', value: 'n1' }], sort: [{ column: 'f', direction: 'desc' }, { column: 'd', direction: 'asc' }], limit: 40 },
      "starts_with(name, 'n1')",
      'f DESC NULLS LAST, d NULLS LAST, id',
    ],
    [
      'limit 7',
      { filters: [{ column: 'grp', op: 'in', value: [1, 2] }], sort: [{ column: 'grp', direction: 'desc' }], limit: 7 },
      'grp IN (1, 2)',
      'grp DESC, id',
    ],
  ];

  for (const [label, body, where, order] of walks) {
    it(`following nextCursor yields every matching row once, in order: ${label}`, async () => {
      const expected = await truthIds(where, [], order);
      const { rows, pages } = await readAll({ ...body, columns: ['id'] });
      const ids = rows.map((r) => r[0]);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toEqual(expected);
      expect(pages).toBe(Math.max(1, Math.ceil(expected.length / (body.limit ?? 100))));
    });
  }

  it('lets the page size change between pages', async () => {
    const first = await read({ columns: ['id'], limit: 10 });
    const second = await read({ columns: ['id'], limit: 5, cursor: first.body.data.nextCursor });
    expect(second.body.data.rows.map((r: unknown[]) => r[0])).toEqual([11, 12, 13, 14, 15]);
  });

  it('refuses a cursor replayed with other columns, filters, sort or artifact', async () => {
    const body: ReadBody = { columns: ['id', 'grp'], filters: [{ column: 'grp', op: 'eq', value: 1 }], sort: [{ column: 'name', direction: 'asc' }], limit: 5 };
    const first = await read(body);
    const cursor = first.body.data.nextCursor as string;
    expect((await read({ ...body, cursor })).status).toBe(200);
    // Another artifact of the same rows: resubmitting the same statement would get the same artifact back.
    const otherArtifact = await submit(`${SQL} LIMIT 100000`);
    const replays: [ReadBody, string][] = [
      [{ ...body, cursor, columns: ['id'] }, artifactId],
      [{ ...body, cursor, columns: undefined }, artifactId],
      [{ ...body, cursor, filters: [{ column: 'grp', op: 'eq', value: 2 }] }, artifactId],
      [{ ...body, cursor, filters: undefined }, artifactId],
      [{ ...body, cursor, sort: [{ column: 'name', direction: 'desc' }] }, artifactId],
      [{ ...body, cursor, sort: undefined }, artifactId],
      [{ ...body, cursor }, otherArtifact],
    ];
    for (const [replay, id] of replays) {
      const r = await read(replay, TOKENS.admin, id);
      expect(r.status, JSON.stringify(replay)).toBe(400);
      expect(r.body).toMatchObject({ success: false, data: null, errorCode: 'INVALID_CURSOR' });
    }
  });

  it('refuses a tampered or made-up cursor', async () => {
    const cursor = (await read({ limit: 5 })).body.data.nextCursor as string;
    const flip = (text: string, at: number) => text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);
    const dot = cursor.indexOf('.');
    const tampered = [flip(cursor, 3), flip(cursor, dot - 2), flip(cursor, dot + 3), flip(cursor, cursor.length - 2), cursor.slice(0, dot), `${cursor}.x`, 'not-a-cursor', ''];
    for (const bad of tampered) {
      const r = await read({ limit: 5, cursor: bad });
      expect(r.status, bad).toBe(400);
      expect(r.body.errorCode, bad).toBe('INVALID_CURSOR');
    }
  });

  it('a cursor signed for another principal is refused', async () => {
    const { cursorKey } = JSON.parse(readFileSync(join(server.dataDir, 'secrets.json'), 'utf8')) as { cursorKey: string };
    const forged = new CursorCodec(cursorKey).encode(artifactId, 'other', readShape({}), 10);
    const r = await read({ cursor: forged });
    expect(r.body.errorCode).toBe('INVALID_CURSOR');
    // The same codec's cursor for the right principal works, so the refusal is about the principal.
    const genuine = new CursorCodec(cursorKey).encode(artifactId, 'admin', readShape({}), 10);
    const ok = await read({ cursor: genuine, limit: 2, columns: undefined });
    expect(ok.body.data.rows.map((r: unknown[]) => r[0])).toEqual([11, 12]);
  });

  it('another principal using a valid cursor gets NOT_FOUND: the artifact does not exist for it', async () => {
    const cursor = (await read({ limit: 5 })).body.data.nextCursor as string;
    for (const token of [TOKENS.other, TOKENS.reader]) {
      const r = await read({ limit: 5, cursor }, token);
      expect(r.status).toBe(404);
      expect(r.body.errorCode).toBe('NOT_FOUND');
    }
  });

  it('an expired cursor answers CURSOR_EXPIRED', async () => {
    const { cursorKey } = JSON.parse(readFileSync(join(server.dataDir, 'secrets.json'), 'utf8')) as { cursorKey: string };
    const past = Date.now() - CURSOR_TTL_MS - 60_000;
    const old = new CursorCodec(cursorKey, () => past);
    for (const body of [{}, { columns: ['id'] }] as ReadBody[]) {
      const r = await read({ ...body, cursor: old.encode(artifactId, 'admin', readShape(body), 100) });
      expect(r.status).toBe(410);
      expect(r.body).toMatchObject({ success: false, data: null, errorCode: 'CURSOR_EXPIRED' });
    }
  });
});

describe('pages served again from memory', () => {
  it('are authorized like any read: another principal, a deleted artifact and an expired cursor never get them', async () => {
    const id = await submit(`${SQL} LIMIT 300`);
    const first = await read({ limit: 50 }, TOKENS.admin, id);
    const again = await read({ limit: 50 }, TOKENS.admin, id);
    expect(again.body.data.rows).toEqual(first.body.data.rows);
    expect(again.body.data.columns).toEqual(first.body.data.columns);
    const cursor = first.body.data.nextCursor as string;
    expect((await read({ limit: 50, cursor }, TOKENS.admin, id)).status).toBe(200);
    for (const token of [TOKENS.other, TOKENS.reader]) {
      for (const body of [{ limit: 50 }, { limit: 50, cursor }]) {
        const r = await read(body, token, id);
        expect(r.status).toBe(404);
        expect(r.body).toMatchObject({ data: null, errorCode: 'NOT_FOUND' });
      }
    }
    expect((await server.request(`/api/artifacts/${id}`, { method: 'DELETE' })).status).toBe(200);
    for (const body of [{ limit: 50 }, { limit: 50, cursor }, { limit: 50, cursor: 'garbage' }]) {
      const r = await read(body, TOKENS.admin, id);
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ data: null, errorCode: 'NOT_FOUND' });
    }
  });

  it('a cursor of another read shape is refused even when that page was served before', async () => {
    const served = await read({ limit: 10, columns: ['id'] });
    const cursor = served.body.data.nextCursor as string;
    expect((await read({ limit: 10, columns: ['id'], cursor })).status).toBe(200);
    const r = await read({ limit: 10, columns: ['grp'], cursor });
    expect(r.body.errorCode).toBe('INVALID_CURSOR');
  });
});

describe('artifact metadata, listing and deletion', () => {
  it('GET /api/artifacts/{id} describes the artifact', async () => {
    const r = await server.request(`/api/artifacts/${artifactId}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, errorCode: null });
    const a = r.body.data;
    expect(a).toMatchObject({
      id: artifactId,
      state: 'COMMITTED',
      sessionId: 'default',
      sql: SQL,
      datasource: 'default',
      rowCount: ROWS,
      coverage: 'COMPLETE',
    });
    expect(a.columns).toEqual([
      { name: 'id', type: 'int4' },
      { name: 'grp', type: 'int4' },
      { name: 'name', type: 'text' },
      { name: 'amount', type: 'numeric' },
      { name: 'big', type: 'int8' },
      { name: 'flag', type: 'bool' },
      { name: 'ts', type: 'timestamptz' },
      { name: 'd', type: 'date' },
      { name: 'f', type: 'float8' },
    ]);
    expect(a.sizeBytes).toBeGreaterThan(0);
    expect(Number.isNaN(Date.parse(a.createdAt))).toBe(false);
    expect(Date.parse(a.expiresAt)).toBeGreaterThan(Date.parse(a.createdAt));
    expect(a.capabilities).toMatchObject({ projection: true, sort: true, aggregate: true });
    expect([...a.capabilities.filterOps].sort()).toEqual(
      ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'not_in', 'between', 'is_null', 'is_not_null', 'contains', 'starts_with'].sort(),
    );
    expect([...a.capabilities.formats].sort()).toEqual(['csv', 'jsonl', 'parquet']);
  });

  it('GET /api/artifacts lists the caller\u2019s artifacts and pages with nextCursor', async () => {
    const mine = [await submit('SELECT 1 AS a'), await submit('SELECT 2 AS b'), await submit('SELECT 3 AS c')];
    const theirs = await submit('SELECT 4 AS d', TOKENS.other);
    const seen: { id: string; createdAt: string }[] = [];
    let cursor: string | null = null;
    for (let pages = 0; ; pages++) {
      expect(pages).toBeLessThan(50);
      const r = await server.request(`/api/artifacts?limit=1${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
      expect(r.status).toBe(200);
      expect(r.body.data.artifacts.length).toBeLessThanOrEqual(1);
      seen.push(...r.body.data.artifacts);
      cursor = r.body.data.nextCursor;
      if (cursor === null) break;
    }
    const ids = seen.map((a) => a.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of [...mine, artifactId]) expect(ids).toContain(id);
    expect(ids).not.toContain(theirs);
    // Newest first.
    const created = seen.map((a) => Date.parse(a.createdAt));
    expect([...created].sort((x, y) => y - x)).toEqual(created);
    expect(ids.indexOf(mine[2]!)).toBeLessThan(ids.indexOf(mine[0]!));
    const full = await server.request('/api/artifacts?limit=500');
    expect(full.body.data.artifacts.map((a: { id: string }) => a.id)).toEqual(ids);
  });

  it('DELETE is idempotent and the artifact is gone afterwards', async () => {
    const id = await submit('SELECT 42 AS answer');
    for (let i = 0; i < 2; i++) {
      const r = await server.request(`/api/artifacts/${id}`, { method: 'DELETE' });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ success: true, errorCode: null, data: { id, deleted: true } });
    }
    const get = await server.request(`/api/artifacts/${id}`);
    expect(get.status).toBe(404);
    expect(get.body.errorCode).toBe('NOT_FOUND');
    const r = await read({}, TOKENS.admin, id);
    expect(r.status).toBe(404);
    expect(r.body.errorCode).toBe('NOT_FOUND');
    const list = await server.request('/api/artifacts?limit=500');
    expect(list.body.data.artifacts.map((a: { id: string }) => a.id)).not.toContain(id);
  });
});

describe('an artifact of several Parquet parts', () => {
  const BIG = `${SCHEMA}.big`;
  const BIG_ROWS = 300_000;
  let bigId: string;
  let codec: CursorCodec;

  /** A cursor at any offset, signed with the server's key, so a test can land next to a part boundary. */
  const cursorAt = (body: ReadBody, offset: number) => codec.encode(bigId, 'admin', readShape(body), offset);

  beforeAll(async () => {
    // About 36 MB of CSV: more than one part (a part closes after 32 MB).
    await server.sql.query(`CREATE TABLE ${BIG} AS SELECT i AS id, i % 3 AS grp, repeat(md5(i::text), 3) || lpad(i::text, 14, '0') AS pad FROM generate_series(1, ${BIG_ROWS}) AS i`);
    bigId = await submit(`SELECT * FROM ${BIG} ORDER BY id`);
    const { cursorKey } = JSON.parse(readFileSync(join(server.dataDir, 'secrets.json'), 'utf8')) as { cursorKey: string };
    codec = new CursorCodec(cursorKey);
  });

  /** Rows per Parquet part of the big artifact, in part order, from the parts' own metadata. */
  async function partRowCounts(): Promise<number[]> {
    const root = join(server.dataDir, 'artifacts');
    const parts = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.parquet')).map((f) => join(root, f));
    const byDir = new Map<string, string[]>();
    for (const file of parts) byDir.set(join(file, '..'), [...(byDir.get(join(file, '..')) ?? []), file]);
    const files = [...byDir.values()].sort((a, b) => b.length - a.length)[0]!.sort();
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    try {
      const counts: number[] = [];
      for (const file of files) counts.push(Number((await duck.runAndReadAll(`SELECT num_rows FROM parquet_file_metadata('${file}')`)).getRowsJS()[0]![0]));
      return counts;
    } finally {
      duck.closeSync();
    }
  }

  it('really has several parts', () => {
    const parquet = readdirSync(join(server.dataDir, 'artifacts'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.parquet'));
    const byDir = new Map<string, number>();
    for (const file of parquet) byDir.set(join(file, '..'), (byDir.get(join(file, '..')) ?? 0) + 1);
    expect(Math.max(...byDir.values())).toBeGreaterThan(1);
  });

  it('pages without filter or sort cross part boundaries without a gap or a repeat', async () => {
    const { rows } = await readAll({ columns: ['id'], limit: 1000 }, bigId);
    expect(rows).toHaveLength(BIG_ROWS);
    rows.forEach((r, i) => {
      if (r[0] !== i + 1) expect(r[0], `row ${i}`).toBe(i + 1);
    });
  }, 120_000);

  it('a cursor page anywhere, across part boundaries too, holds exactly the rows OFFSET gives', async () => {
    const counts = await partRowCounts();
    expect(counts.length).toBeGreaterThan(1);
    const boundaries = counts.slice(0, -1).map((_, i) => counts.slice(0, i + 1).reduce((a, b) => a + b, 0));
    const offsets = [1, 29_999, 30_720, 61_439, ...boundaries.flatMap((b) => [b - 1000, b - 1, b, b + 1]), BIG_ROWS - 1000, BIG_ROWS - 1, BIG_ROWS, BIG_ROWS + 5];
    for (const offset of offsets) {
      for (const limit of [1, 1000]) {
        const r = await read({ limit, cursor: cursorAt({}, offset) }, TOKENS.admin, bigId);
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        const truth = await server.sql.query(`SELECT id, grp, pad FROM ${BIG} ORDER BY id OFFSET ${offset} LIMIT ${limit}`);
        expect(r.body.data.rows, `offset ${offset}, limit ${limit}`).toEqual(truth.map((t) => [t.id, t.grp, t.pad]));
        expect(r.body.data.nextCursor === null, `offset ${offset}, limit ${limit}`).toBe(offset + limit >= BIG_ROWS);
      }
    }
  }, 120_000);

  it('a reader following its cursor across blocks and part boundaries gets exactly the rows OFFSET gives, in each projection', async () => {
    const counts = await partRowCounts();
    const boundary = counts[0]!;
    for (const columns of [['id', 'pad'], ['grp', 'id'], undefined]) {
      const body: ReadBody = { columns, limit: 100 };
      let offset = boundary - 350;
      let cursor: string | null = cursorAt(body, offset);
      // Pages after the first follow their cursor, so they are cut from blocks read ahead.
      for (let page = 0; page < 9 && cursor !== null; page++) {
        const r = await read({ ...body, cursor }, TOKENS.admin, bigId);
        expect(r.status, JSON.stringify(r.body)).toBe(200);
        const names = columns ?? ['id', 'grp', 'pad'];
        const truth = await server.sql.query(`SELECT ${names.join(', ')} FROM ${BIG} ORDER BY id OFFSET ${offset} LIMIT 100`);
        expect(r.body.data.columns.map((c: { name: string }) => c.name)).toEqual(names);
        expect(r.body.data.rows, `${names.join(',')} at ${offset}`).toEqual(truth.map((t) => names.map((n) => t[n])));
        offset += 100;
        cursor = r.body.data.nextCursor;
      }
    }
    // The last pages of the artifact, followed to the end: the last one says so.
    const body: ReadBody = { limit: 200 };
    const tail = await read({ ...body, cursor: cursorAt(body, BIG_ROWS - 350) }, TOKENS.admin, bigId);
    const last = await read({ ...body, cursor: tail.body.data.nextCursor }, TOKENS.admin, bigId);
    expect(last.body.data.rows.map((r: unknown[]) => r[0])).toEqual(Array.from({ length: 150 }, (_, i) => BIG_ROWS - 150 + i + 1));
    expect(last.body.data.nextCursor).toBeNull();
  }, 120_000);

  it('a filtered walk and sorted pages anywhere in the result match PostgreSQL', async () => {
    const filtered = await readAll({ columns: ['id'], filters: [{ column: 'id', op: 'starts_with', value: '29' }], limit: 1000 }, bigId);
    expect(filtered.rows.map((r) => r[0])).toEqual((await server.sql.query(`SELECT id FROM ${BIG} WHERE starts_with(id::text, '29') ORDER BY id`)).map((t) => t.id));
    const body: ReadBody = { columns: ['id', 'grp'], sort: [{ column: 'grp', direction: 'desc' }] };
    for (const offset of [0, 99_990, 100_000, 150_000, 199_995, 250_000, BIG_ROWS - 10]) {
      const r = await read({ ...body, limit: 20, cursor: cursorAt(body, offset) }, TOKENS.admin, bigId);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const truth = await server.sql.query(`SELECT id, grp FROM ${BIG} ORDER BY grp DESC, id OFFSET ${offset} LIMIT 20`);
      expect(r.body.data.rows, `offset ${offset}`).toEqual(truth.map((t) => [t.id, t.grp]));
    }
  }, 120_000);
});
