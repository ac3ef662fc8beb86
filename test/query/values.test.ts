/**
 * The contract's value encoding, exact and identical wherever a caller meets
 * a value: the preview of POST /api/queries and artifact reads, through the
 * COPY path and through the cursor path that bound parameters take. The
 * datasource connection starts with a foreign time zone and output styles,
 * so nothing may depend on the session's settings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { readAll, runQuery } from './query-test-helpers.ts';

// One schema per test process: a second run of this file against the same database must not collide.
const SCHEMA = `qtest_values_${process.pid}`;

let server: TestServer;

beforeAll(async () => {
  const base = process.env.TEST_DATABASE_URL;
  // Session settings the export must override: none of these may leak into a value.
  const foreign = 'TimeZone=Asia%2FKathmandu&DateStyle=SQL%2C%20DMY&IntervalStyle=iso_8601&extra_float_digits=-3&bytea_output=escape';
  server = await startTestServer(base ? { DATABASE_URL: `${base}${base.includes('?') ? '&' : '?'}${foreign}` } : {});
  await server.sql.query(`drop schema if exists ${SCHEMA} cascade`);
  await server.sql.query(`create schema ${SCHEMA}`);
  await server.sql.query(`
    create table ${SCHEMA}.money (id int4, price numeric(12,2), ratio numeric(5,4), wide numeric);
    insert into ${SCHEMA}.money values
      (1, 12.5, 0.1234, 12345678901234567890.123456789012),
      (2, -0.01, -1, 0),
      (3, null, null, null),
      (4, 9999999999.99, 9.9999, '-0.000000000000000000000000000001');
  `);
});

afterAll(async () => {
  await server?.sql.query(`drop schema if exists ${SCHEMA} cascade`);
  await server?.stop();
});

/** Runs a query with materialize "always"; returns the preview and the artifact read back, after checking they agree. */
async function both(sql: string, params?: unknown[]): Promise<{ columns: { name: string; type: string }[]; rows: unknown[][] }> {
  const body: Record<string, unknown> = { sql, materialize: 'always', previewRows: 500 };
  if (params !== undefined) body.params = params;
  const r = await runQuery(server, body);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const data = r.body.data;
  expect(data.artifact.decision).toBe('CREATED');
  const read = await readAll(server, data.artifact.id);
  expect(read.columns).toEqual(data.preview.columns);
  expect(read.rows).toEqual(data.preview.rows);
  return data.preview;
}

/** The single value of a one-row, one-column query, checked in the preview and the artifact. */
async function value(sql: string): Promise<unknown> {
  const { rows } = await both(sql);
  expect(rows).toHaveLength(1);
  expect(rows[0]).toHaveLength(1);
  return rows[0]![0];
}

describe('numbers', () => {
  it('int8 extremes are exact decimal strings', async () => {
    const r = await both(`select 9223372036854775807::int8 as max, (-9223372036854775807 - 1)::int8 as min, 0::int8 as zero, null::int8 as none`);
    expect(r.columns).toEqual([
      { name: 'max', type: 'int8' },
      { name: 'min', type: 'int8' },
      { name: 'zero', type: 'int8' },
      { name: 'none', type: 'int8' },
    ]);
    expect(r.rows).toEqual([['9223372036854775807', '-9223372036854775808', '0', null]]);
  });

  it('int2 and int4 are JSON numbers', async () => {
    const r = await both(`select 32767::int2 as a, (-2147483648)::int4 as b`);
    expect(r.rows).toEqual([[32767, -2147483648]]);
    expect(r.columns.map((c) => c.type)).toEqual(['int2', 'int4']);
  });

  it('unconstrained numeric keeps every digit', async () => {
    expect(await value(`select 12345678901234567890.123456789012::numeric as n`)).toBe('12345678901234567890.123456789012');
    expect(await value(`select '-0.000000000000000000000000000001'::numeric as n`)).toBe('-0.000000000000000000000000000001');
    expect(await value(`select 'NaN'::numeric as n`)).toBe('NaN');
  });

  it('NaN in a numeric(p,s) column is refused with what to cast, and the cast keeps it', async () => {
    await server.sql.query(`create table ${SCHEMA}.nan_case (x numeric(12,2)); insert into ${SCHEMA}.nan_case values (1.5), ('NaN')`);
    const refused = await runQuery(server, { sql: `select x from ${SCHEMA}.nan_case`, materialize: 'always' });
    expect(refused.status).toBe(400);
    expect(refused.body.errorCode).toBe('SQL_ERROR');
    expect(refused.body.error.details.reason).toBe('NUMERIC_NAN');
    expect(refused.body.summary).toMatch(/x::numeric/);
    expect((await both(`select x::numeric as x from ${SCHEMA}.nan_case order by x`)).rows).toEqual([['1.50'], ['NaN']]);
  });

  it('numeric columns of a table keep their scale, constrained or not', async () => {
    const r = await both(`select price, ratio, wide from ${SCHEMA}.money order by id`);
    expect(r.columns).toEqual([
      { name: 'price', type: 'numeric' },
      { name: 'ratio', type: 'numeric' },
      { name: 'wide', type: 'numeric' },
    ]);
    expect(r.rows).toEqual([
      ['12.50', '0.1234', '12345678901234567890.123456789012'],
      ['-0.01', '-1.0000', '0'],
      [null, null, null],
      ['9999999999.99', '9.9999', '-0.000000000000000000000000000001'],
    ]);
  });

  it('a computed numeric(12,2) keeps its scale', async () => {
    expect(await value(`select 12.5::numeric(12,2) as n`)).toBe('12.50');
  });

  it('float8 specials are strings, finite values shortest-exact numbers', async () => {
    const r = await both(
      `select 'NaN'::float8 as nan, 'Infinity'::float8 as inf, '-Infinity'::float8 as ninf, 0.1::float8 as tenth,
              1e300::float8 as big, -2.5e-300::float8 as tiny, 0::float8 as zero`,
    );
    expect(r.rows).toEqual([['NaN', 'Infinity', '-Infinity', 0.1, 1e300, -2.5e-300, 0]]);
  });

  it('float4 1.1 is 1.1, not its widened double', async () => {
    const r = await both(`select 1.1::float4 as a, 3.4028235e38::float4 as b, 'NaN'::float4 as c, '-Infinity'::float4 as d`);
    expect(r.rows).toEqual([[1.1, 3.4028235e38, 'NaN', '-Infinity']]);
    expect(r.columns.map((c) => c.type)).toEqual(['float4', 'float4', 'float4', 'float4']);
  });
});

describe('dates and times', () => {
  it('timestamptz is UTC with Z and microseconds, whatever the session time zone', async () => {
    const r = await both(
      `select '2026-01-31 23:59:59.123456+00'::timestamptz as a,
              '2026-02-01 05:44:59.123456+05:45'::timestamptz as b,
              '2026-01-31 18:59:59+00'::timestamptz as c,
              '2026-06-15 12:00:00.5 America/New_York'::timestamptz as d`,
    );
    expect(r.rows).toEqual([
      ['2026-01-31T23:59:59.123456Z', '2026-01-31T23:59:59.123456Z', '2026-01-31T18:59:59.000000Z', '2026-06-15T16:00:00.500000Z'],
    ]);
    expect(r.columns.map((c) => c.type)).toEqual(['timestamptz', 'timestamptz', 'timestamptz', 'timestamptz']);
  });

  it('timestamp without time zone has no zone and keeps microseconds', async () => {
    const r = await both(`select '2026-01-31 23:59:59.123456'::timestamp as a, '2026-01-31 00:00:00'::timestamp as b`);
    expect(r.rows).toEqual([['2026-01-31T23:59:59.123456', '2026-01-31T00:00:00.000000']]);
  });

  it('date is YYYY-MM-DD, whatever the session DateStyle', async () => {
    const r = await both(`select '2026-01-31'::date as a, '0001-01-01'::date as b`);
    expect(r.rows).toEqual([['2026-01-31', '0001-01-01']]);
  });

  it('infinite timestamps and dates are their PostgreSQL text', async () => {
    const r = await both(
      `select 'infinity'::timestamptz as a, '-infinity'::timestamptz as b, 'infinity'::timestamp as c,
              '-infinity'::timestamp as d, 'infinity'::date as e, '-infinity'::date as f`,
    );
    expect(r.rows).toEqual([['infinity', '-infinity', 'infinity', '-infinity', 'infinity', '-infinity']]);
  });

  it('BC dates and timestamps keep their era, written as PostgreSQL writes it', async () => {
    // DuckDB's date parser used to drop " BC" silently, turning 44 BC into 44 AD.
    const sql = `select '0044-03-15 BC'::date as d, '0044-03-15 12:34:56.5 BC'::timestamp as ts,
      '0044-03-15 12:34:56.5+00 BC'::timestamptz as tz, '0001-12-31 BC'::date as last_bc, '4713-01-01 BC'::date as earliest,
      '0001-01-01'::date as first_ad, 'Vancouver BC' as city`;
    const expected = ['0044-03-15 BC', '0044-03-15T12:34:56.500000 BC', '0044-03-15T12:34:56.500000Z BC', '0001-12-31 BC', '4713-01-01 BC', '0001-01-01', 'Vancouver BC'];
    expect((await both(sql)).rows).toEqual([expected]);
    expect((await both(`${sql} where $1::int = 1`, [1])).rows).toEqual([expected]);
  });

  it('BC dates are stored as dates: a sorted read puts them before AD ones', async () => {
    const r = await runQuery(server, {
      sql: `select d from (values ('2026-01-31'::date), ('0044-03-15 BC'), ('0001-01-01'), ('0001-12-31 BC'), ('4713-01-01 BC')) v(d)`,
      materialize: 'always',
    });
    const page = await server.request(`/api/artifacts/${r.body.data.artifact.id}/read`, { body: { sort: [{ column: 'd', direction: 'asc' }] } });
    expect(page.body.data.rows).toEqual([['4713-01-01 BC'], ['0044-03-15 BC'], ['0001-12-31 BC'], ['0001-01-01'], ['2026-01-31']]);
  });

  it('a text value ending in " BC" next to ordinary dates changes nothing', async () => {
    const r = await both(`select 'Victoria, BC' as city, '2026-01-31'::date as d, '2026-01-31 10:00:00+00'::timestamptz as t`);
    expect(r.rows).toEqual([['Victoria, BC', '2026-01-31', '2026-01-31T10:00:00.000000Z']]);
  });

  it('interval is its PostgreSQL text in the postgres style', async () => {
    expect(await value(`select interval '1 day 2 hours 3 minutes 4.5 seconds' as i`)).toBe('1 day 02:03:04.5');
    expect(await value(`select interval '-1 year 2 mons' as i`)).toBe('-10 mons');
  });
});

describe('text', () => {
  it('NULL is null and the empty string stays ""', async () => {
    const r = await both(`select null::text as a, ''::text as b, ' '::text as c, 'NULL'::text as d, '\\N'::text as e`);
    expect(r.rows).toEqual([[null, '', ' ', 'NULL', '\\N']]);
  });

  it('newlines, quotes, commas, backslashes and unicode survive', async () => {
    const samples = [
      'line one\nline two\r\nline three',
      'she said "hi", then \'bye\'',
      ',,,',
      '""',
      'back\\slash\ttab',
      'emoji 😀👍🏽 and CJK 漢字かなカナ 한국어',
      'trailing newline\n',
      '"',
    ];
    const sql = `select v from unnest($1::text[]) with ordinality as t(v, i) order by i`;
    // Through the COPY path, with the values spelled as literals.
    const literals = samples.map((s, i) => `(${i}, '${s.replaceAll("'", "''")}')`);
    const copy = await both(`select v from (values ${literals.join(', ')}) as t(i, v) order by i`);
    expect(copy.rows).toEqual(samples.map((s) => [s]));
    // Through the cursor path, with the values bound.
    const cursor = await both(sql, [`{${samples.map((s) => `"${s.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`).join(',')}}`]);
    expect(cursor.rows).toEqual(samples.map((s) => [s]));
  });

  it('bool is true/false', async () => {
    const r = await both(`select true as a, false as b, null::bool as c`);
    expect(r.rows).toEqual([[true, false, null]]);
  });

  it('uuid is its text', async () => {
    expect(await value(`select 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'::uuid as u`)).toBe('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11');
  });
});

describe('long rows', () => {
  // DuckDB's CSV reader refuses a line longer than its max_line_size (2 MB by default) unless told.
  const big = (rows: unknown[][]) => rows.map((r) => [r[0], (r[1] as string).length, (r[1] as string).slice(-3)]);

  /** Like both(), for values over the preview's cell bound (10000 characters by default): the artifact holds them whole, the preview cut and listed. */
  async function whole(sql: string, params?: unknown[]) {
    const body: Record<string, unknown> = { sql, materialize: 'always', previewRows: 500 };
    if (params !== undefined) body.params = params;
    const r = await runQuery(server, body);
    expect(r.status, JSON.stringify(r.body).slice(0, 2000)).toBe(200);
    const read = await readAll(server, r.body.data.artifact.id);
    expect(read.columns).toEqual(r.body.data.preview.columns);
    return { preview: r.body.data.preview as { rows: unknown[][]; cutCells: unknown[] }, rows: read.rows };
  }

  it('a row of several megabytes exports whole, next to short ones', async () => {
    const r = await whole(`select g, case when g = 2 then repeat('x', 5000000) || 'end' else 'short' end as doc from generate_series(1, 3) g`);
    expect(big(r.rows)).toEqual([[1, 5, 'ort'], [2, 5_000_003, 'end'], [3, 5, 'ort']]);
    expect(r.preview.rows).toEqual([[1, 'short'], [2, 'x'.repeat(10_000)], [3, 'short']]);
    expect(r.preview.cutCells).toEqual([{ row: 1, column: 1, chars: 5_000_003 }]);
  });

  it('through the cursor path too (bound parameters)', async () => {
    const r = await whole(`select g, repeat($1::text, 3000000) || g as doc from generate_series(1, 2) g`, ['é']);
    expect(big(r.rows)).toEqual([[1, 3_000_001, 'éé1'], [2, 3_000_001, 'éé2']]);
    // Characters, not bytes: 10000 é of the 3000001.
    expect(r.preview.rows).toEqual([[1, 'é'.repeat(10_000)], [2, 'é'.repeat(10_000)]]);
    expect(r.preview.cutCells).toEqual([{ row: 0, column: 1, chars: 3_000_001 }, { row: 1, column: 1, chars: 3_000_001 }]);
  });

  it('a row too long for the export memory fails with a message that says so, and the next query runs', async () => {
    // Two 60 MB rows take a while on a busy machine: wait for the end rather than a 202.
    const r = await runQuery(server, { sql: `select g, repeat('x', 60000000) as doc from generate_series(1, 2) g`, materialize: 'always', waitMs: 240_000 });
    expect(r.status).toBe(500);
    expect(r.body.errorCode).toBe('INTERNAL');
    expect(r.body.error.details.reason).toBe('OUT_OF_MEMORY');
    expect(r.body.summary).toMatch(/row of the result is too large/);
    expect(await value(`select 'still here'`)).toBe('still here');
  }, 300_000);
});

describe('structured values', () => {
  it('json and jsonb are their JSON text, as strings', async () => {
    const r = await both(`select '{"b": 1, "a": [1, 2.50, "x"]}'::json as j, '{"b": 1, "a": [1, 2.50, "x"]}'::jsonb as jb, 'null'::jsonb as jn, null::jsonb as sqlnull`);
    expect(r.rows).toEqual([['{"b": 1, "a": [1, 2.50, "x"]}', '{"a": [1, 2.50, "x"], "b": 1}', 'null', null]]);
    expect(r.columns.map((c) => c.type)).toEqual(['json', 'jsonb', 'jsonb', 'jsonb']);
  });

  it('bytea is base64, whatever the session bytea_output', async () => {
    const r = await both(`select '\\x00ff10'::bytea as a, ''::bytea as b, decode(repeat('ab', 100), 'hex') as c`);
    expect(r.rows).toEqual([['AP8Q', '', Buffer.from('ab'.repeat(100), 'hex').toString('base64')]]);
  });

  it('arrays are JSON arrays of encoded elements', async () => {
    const r = await both(
      `select array[1, null, 3]::int4[] as i4, array['a', null, 'with "quote", comma', '']::text[] as t,
              array[9223372036854775807, -1]::int8[] as i8, '{{1,2},{3,4}}'::int4[] as nested, '{}'::int4[] as empty,
              array[true, false]::bool[] as b, null::int4[] as none`,
    );
    expect(r.columns.map((c) => c.type)).toEqual(['_int4', '_text', '_int8', '_int4', '_int4', '_bool', '_int4']);
    expect(r.rows).toEqual([
      [[1, null, 3], ['a', null, 'with "quote", comma', ''], ['9223372036854775807', '-1'], [[1, 2], [3, 4]], [], [true, false], null],
    ]);
  });

  it('timestamp arrays hold encoded timestamps: UTC with Z, six fractional digits', async () => {
    const r = await both(
      `select array['2026-01-31 23:59:59.123456+00', '2026-02-01 05:44:59+05:45', null, 'infinity', '2026-01-31 23:59:59.5+00']::timestamptz[] as tz,
              array['2026-01-31 23:59:59.000001', '2026-01-31 00:00:00']::timestamp[] as ts,
              '{{"2026-01-31 10:00:00+00"},{"2026-01-31 11:00:00.25+00"}}'::timestamptz[] as nested,
              array['2026-01-31']::date[] as d`,
    );
    expect(r.rows).toEqual([
      [
        ['2026-01-31T23:59:59.123456Z', '2026-01-31T23:59:59.000000Z', null, 'infinity', '2026-01-31T23:59:59.500000Z'],
        ['2026-01-31T23:59:59.000001', '2026-01-31T00:00:00.000000'],
        [['2026-01-31T10:00:00.000000Z'], ['2026-01-31T11:00:00.250000Z']],
        ['2026-01-31'],
      ],
    ]);
  });

  it('BC elements of timestamp and date arrays are written as the scalars are', async () => {
    const r = await both(
      `select array['0044-03-15 12:00 BC', '0044-03-15 12:00:00.5+00 BC', '2026-01-31 10:00:00+00']::timestamptz[] as tz,
              array['0044-03-15 12:00:01.123 BC']::timestamp[] as ts, array['0044-03-15 BC']::date[] as d`,
    );
    expect(r.rows).toEqual([
      [
        ['0044-03-15T12:00:00.000000Z BC', '0044-03-15T12:00:00.500000Z BC', '2026-01-31T10:00:00.000000Z'],
        ['0044-03-15T12:00:01.123000 BC'],
        ['0044-03-15 BC'],
      ],
    ]);
  });

  it('columns named like the reader\u2019s own (filename, file_row_number) stay readable', async () => {
    const r = await both(`select 'f.csv' as filename, 7 as file_row_number, 1 as "FILENAME"`);
    expect(r.columns.map((c) => c.name)).toEqual(['filename', 'file_row_number', 'FILENAME']);
    expect(r.rows).toEqual([['f.csv', 7, 1]]);
  });

  it('duplicate column names survive, in order, in columns and rows', async () => {
    const r = await both(`select 1 as a, 2 as a, 'x' as "A", 3 as a`);
    expect(r.columns).toEqual([
      { name: 'a', type: 'int4' },
      { name: 'a', type: 'int4' },
      { name: 'A', type: 'text' },
      { name: 'a', type: 'int4' },
    ]);
    expect(r.rows).toEqual([[1, 2, 'x', 3]]);
  });
});

describe('bound parameters (the cursor path) encode like COPY', () => {
  const columns = `
    $1::int8 as i8, $2::numeric as n, 12.5::numeric(12,2) as n2, 'NaN'::float8 as nan, 0.1::float8 as f8, 1.1::float4 as f4,
    '2026-01-31 23:59:59.123456+00'::timestamptz as tz, '2026-01-31 23:59:59.123456'::timestamp as ts, '2026-01-31'::date as d,
    'infinity'::timestamptz as inf, null::text as nul, ''::text as empty, E'a\\nb "c", d 😀' as t, true as b,
    '{"k": [1, 2]}'::jsonb as jb, '\\x00ff10'::bytea as by, array[1, 2]::int4[] as ai, array[9223372036854775807]::int8[] as a8,
    array['x', null]::text[] as at, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid as u, interval '1 day 02:03:04' as iv, 7 as i4,
    array['2026-01-31 23:59:59+00']::timestamptz[] as atz`;

  it('the same row through COPY (literals) and through the cursor (params)', async () => {
    const viaCopy = await both(`select ${columns.replace('$1::int8', `'9223372036854775807'::int8`).replace('$2::numeric', `'12345678901234567890.123456789012'::numeric`)}`);
    const viaCursor = await both(`select ${columns}`, ['9223372036854775807', '12345678901234567890.123456789012']);
    expect(viaCursor.columns).toEqual(viaCopy.columns);
    expect(viaCursor.rows).toEqual(viaCopy.rows);
    expect(viaCopy.rows).toEqual([
      [
        '9223372036854775807', '12345678901234567890.123456789012', '12.50', 'NaN', 0.1, 1.1,
        '2026-01-31T23:59:59.123456Z', '2026-01-31T23:59:59.123456', '2026-01-31',
        'infinity', null, '', 'a\nb "c", d 😀', true,
        '{"k": [1, 2]}', 'AP8Q', [1, 2], ['9223372036854775807'],
        ['x', null], 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '1 day 02:03:04', 7,
        ['2026-01-31T23:59:59.000000Z'],
      ],
    ]);
  });

  it('parameters bind values, never SQL text', async () => {
    const r = await both(`select $1::text as t, $2::int4 as n`, [`'); drop table ${SCHEMA}.money; --`, 5]);
    expect(r.rows).toEqual([[`'); drop table ${SCHEMA}.money; --`, 5]]);
    const [count] = await server.sql.query<{ n: number }>(`select count(*)::int as n from ${SCHEMA}.money`);
    expect(count!.n).toBe(4);
  });

  it('a null parameter is SQL NULL', async () => {
    const r = await both(`select $1::text as a, $1::text is null as isnull`, [null]);
    expect(r.rows).toEqual([[null, true]]);
  });
});
