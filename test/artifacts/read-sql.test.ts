/**
 * The page-read statement builder on its own: each built statement runs in
 * DuckDB over a three-part Parquet artifact and its rows are compared with
 * the same question answered in plain TypeScript over the same rows. The SQL
 * text itself is only inspected where its shape is the point: values bound
 * as parameters, identifiers quoted, parts skipped by plain paging.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReadStatement } from '../../src/artifacts/read-sql.ts';
import type { Filter, ReadRequest } from '../../src/artifacts/types.ts';
import { artifactFixture, type ArtifactFixture } from './artifact-fixture.ts';

interface Row {
  id: number;
  grp: number | null;
  name: string | null;
  amount: string | null;
  big: string | null;
  flag: boolean | null;
  ts: string | null;
  d: string | null;
  f: number | null;
  n: string | null;
}

const SPECS = [
  { name: 'id', type: 'int4' },
  { name: 'grp', type: 'int4' },
  { name: 'name', type: 'text' },
  { name: 'amount', type: 'numeric(12,2)' },
  { name: 'big', type: 'int8' },
  { name: 'flag', type: 'bool' },
  { name: 'ts', type: 'timestamptz' },
  { name: 'd', type: 'date' },
  { name: 'f', type: 'float8' },
  // Unconstrained numeric: stored as text, compared as a number.
  { name: 'n', type: 'numeric' },
];

const row = (id: number, grp: number | null, name: string | null, amount: string | null, big: string | null, flag: boolean | null, ts: string | null, d: string | null, f: number | null, n: string | null): Row => ({ id, grp, name, amount, big, flag, ts, d, f, n });

// Ties on (grp, name) sit in different parts (1 and 9, 6 and 11), so only the artifact's row order can order them.
const PARTS: Row[][] = [
  [
    row(1, 1, 'apple', '10.00', '9007199254740993', true, '2024-01-01 00:00:00+00', '2024-01-01', 1.5, '10.5'),
    row(2, 2, 'banana', '1.01', '9007199254740992', false, '2024-01-02 12:00:00+00', '2024-01-02', -2, '2'),
    row(3, 1, null, null, null, null, null, null, null, null),
    row(4, 2, 'it\'s "quoted"', '1.00', '-5', true, '2024-01-03 00:00:00+00', '2024-01-03', 0, '3'),
  ],
  [
    row(5, 3, '50%_off', '5.50', '7', false, '2024-01-04 08:30:00+00', '2024-01-04', 3.25, '-1'),
    row(6, null, 'apple pie', '2.00', '8', true, '2024-01-05 00:00:00+00', '2024-01-05', null, '100'),
    row(7, 3, 'cherry', '0.99', '9', null, '2024-01-06 00:00:00+00', '2024-01-06', 7, '3.5'),
    row(8, 2, 'banana', '3.00', '10', false, null, '2024-01-07', -0.5, null),
    row(9, 1, 'apple', '4.00', '11', true, '2024-01-08 00:00:00+00', null, 2, '0.1'),
  ],
  [
    row(10, 3, 'date', null, '12', true, '2024-01-09 00:00:00+00', '2024-01-09', 9, '20'),
    row(11, null, 'apple pie', '6.00', '13', false, '2024-01-10 00:00:00+00', '2024-01-10', 1, '4'),
    row(12, 1, 'elder', '7.25', '14', true, '2024-01-11 00:00:00+00', '2024-01-11', 5, '9'),
  ],
];
const ROWS = PARTS.flat();

let artifact: ArtifactFixture;

beforeAll(async () => {
  artifact = await artifactFixture(
    SPECS,
    PARTS.map((part) => part.map((r) => [r.id, r.grp, r.name, r.amount, r.big, r.flag, r.ts, r.d, r.f, r.n])),
  );
});
afterAll(() => artifact?.close());

function statement(request: Partial<ReadRequest>) {
  return buildReadStatement(artifact.columns, artifact.parts, { limit: 100, offset: 0, ...request });
}

async function ids(request: Partial<ReadRequest>): Promise<number[]> {
  const rows = await artifact.run(statement({ ...request, columns: ['id'] }));
  return rows.map((r) => r[0] as number);
}

const ms = (ts: string) => Date.parse(ts.replace(' ', 'T').replace('+00', 'Z'));

describe('projection', () => {
  it('returns every column in artifact order, encoded as the contract says', async () => {
    const s = statement({ limit: 1 });
    expect(s.columns.map((c) => c.name)).toEqual(SPECS.map((c) => c.name));
    const rows = await artifact.run(s);
    expect(rows[0]).toEqual([1, 1, 'apple', '10.00', '9007199254740993', true, '2024-01-01T00:00:00.000000Z', '2024-01-01', 1.5, '10.5']);
  });

  it('returns the named columns in the requested order, NULL as null', async () => {
    const s = statement({ columns: ['name', 'id', 'amount'], limit: 3 });
    expect(s.columns.map((c) => c.name)).toEqual(['name', 'id', 'amount']);
    expect(await artifact.run(s)).toEqual([
      ['apple', 1, '10.00'],
      ['banana', 2, '1.01'],
      [null, 3, null],
      ['it\'s "quoted"', 4, '1.00'],
    ]);
  });

  it('refuses an empty or unknown projection with VALIDATION_ERROR naming the column', () => {
    expect(() => statement({ columns: [] })).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR' }));
    expect(() => statement({ columns: ['id', 'nope'] })).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR', message: expect.stringContaining('"nope"'), details: expect.objectContaining({ column: 'nope' }) }));
  });
});

describe('filters', () => {
  const notNull = <K extends keyof Row>(k: K) => (r: Row) => r[k] !== null;
  const cases: [string, Filter[], (r: Row) => boolean][] = [
    ['eq on an integer', [{ column: 'grp', op: 'eq', value: 1 }], (r) => r.grp === 1],
    ['eq on text', [{ column: 'name', op: 'eq', value: 'apple' }], (r) => r.name === 'apple'],
    ['ne leaves NULL out, as SQL does', [{ column: 'grp', op: 'ne', value: 1 }], (r) => r.grp !== null && r.grp !== 1],
    ['lt on a decimal given as a string', [{ column: 'amount', op: 'lt', value: '5' }], (r) => r.amount !== null && Number(r.amount) < 5],
    // Rounding 1.005 to the column's scale would make 1.01 match.
    ['lte on a decimal with more digits than the column', [{ column: 'amount', op: 'lte', value: 1.005 }], (r) => r.amount !== null && Number(r.amount) <= 1.005],
    ['gt on int8 beyond 2^53, exactly', [{ column: 'big', op: 'gt', value: '9007199254740992' }], (r) => r.big !== null && BigInt(r.big) > 9007199254740992n],
    ['gte on timestamptz with an offset', [{ column: 'ts', op: 'gte', value: '2024-01-02T14:00:00+02:00' }], (r) => r.ts !== null && ms(r.ts) >= Date.parse('2024-01-02T12:00:00Z')],
    ['in', [{ column: 'grp', op: 'in', value: [2, 3] }], (r) => r.grp === 2 || r.grp === 3],
    ['not_in leaves NULL out', [{ column: 'grp', op: 'not_in', value: [1] }], (r) => r.grp !== null && r.grp !== 1],
    ['between on dates, inclusive', [{ column: 'd', op: 'between', value: ['2024-01-02', '2024-01-05'] }], (r) => r.d !== null && r.d >= '2024-01-02' && r.d <= '2024-01-05'],
    ['is_null', [{ column: 'name', op: 'is_null' }], (r) => r.name === null],
    ['is_not_null', [{ column: 'amount', op: 'is_not_null' }], notNull('amount')],
    // contains is not LIKE: % and _ are plain characters.
    ['contains with LIKE wildcards', [{ column: 'name', op: 'contains', value: '%_' }], (r) => r.name?.includes('%_') ?? false],
    ['starts_with', [{ column: 'name', op: 'starts_with', value: 'apple' }], (r) => r.name?.startsWith('apple') ?? false],
    ['contains on an int8 column, as its text', [{ column: 'big', op: 'contains', value: '9007' }], (r) => r.big?.includes('9007') ?? false],
    ['eq on bool', [{ column: 'flag', op: 'eq', value: true }], (r) => r.flag === true],
    ['lt on float8', [{ column: 'f', op: 'lt', value: 0 }], (r) => r.f !== null && r.f < 0],
    // As text, "10.5" < "3"; as numbers it is greater.
    ['gt on unconstrained numeric compares numbers, not text', [{ column: 'n', op: 'gt', value: '3' }], (r) => r.n !== null && Number(r.n) > 3],
    [
      'several filters are AND-ed',
      [
        { column: 'flag', op: 'eq', value: true },
        { column: 'amount', op: 'gte', value: '2' },
      ],
      (r) => r.flag === true && r.amount !== null && Number(r.amount) >= 2,
    ],
  ];

  for (const [label, filters, predicate] of cases) {
    it(`${label}`, async () => {
      const expected = ROWS.filter(predicate).map((r) => r.id);
      // A case that matches nothing or everything would not show a wrong filter.
      expect(expected.length).toBeGreaterThan(0);
      expect(expected.length).toBeLessThan(ROWS.length);
      expect(await ids({ filters })).toEqual(expected);
    });
  }

  it('refuses an unknown op with UNSUPPORTED_CAPABILITY and an unknown column with VALIDATION_ERROR', () => {
    expect(() => statement({ filters: [{ column: 'grp', op: 'like', value: 'a%' }] })).toThrow(expect.objectContaining({ code: 'UNSUPPORTED_CAPABILITY' }));
    expect(() => statement({ filters: [{ column: 'nope', op: 'eq', value: 1 }] })).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR', details: expect.objectContaining({ column: 'nope' }) }));
  });
});

describe('values are bound, never spliced', () => {
  const hostile = "zz' OR '1'='1' --";
  const ops: Filter[] = [
    { column: 'name', op: 'eq', value: hostile },
    { column: 'name', op: 'ne', value: hostile },
    { column: 'name', op: 'lt', value: hostile },
    { column: 'name', op: 'lte', value: hostile },
    { column: 'name', op: 'gt', value: hostile },
    { column: 'name', op: 'gte', value: hostile },
    { column: 'name', op: 'in', value: ['apple', hostile] },
    { column: 'name', op: 'not_in', value: [hostile] },
    { column: 'name', op: 'between', value: [hostile, `${hostile}z`] },
    { column: 'name', op: 'contains', value: hostile },
    { column: 'name', op: 'starts_with', value: hostile },
  ];
  for (const filter of ops) {
    it(`${filter.op}: the value is a parameter and absent from the SQL text`, () => {
      const s = statement({ filters: [filter] });
      expect(s.sql).not.toContain("OR '1'='1'");
      expect(s.params).toContain(hostile);
      expect(s.sql.split('?').length - 1).toBe(s.params.length);
    });
  }

  it('a value holding quotes matches exactly the row that holds it', async () => {
    expect(await ids({ filters: [{ column: 'name', op: 'eq', value: 'it\'s "quoted"' }] })).toEqual([4]);
    expect(await ids({ filters: [{ column: 'name', op: 'eq', value: hostile }] })).toEqual([]);
    expect(await ids({ filters: [{ column: 'name', op: 'in', value: ['apple', hostile] }] })).toEqual([1, 9]);
  });

  it('binds numbers and dates too, in the order their placeholders appear', () => {
    const s = statement({
      filters: [
        { column: 'grp', op: 'between', value: [1, 2] },
        { column: 'd', op: 'eq', value: '2024-01-01' },
        { column: 'big', op: 'in', value: ['7', '8'] },
      ],
    });
    expect(s.params).toEqual(['1', '2', '2024-01-01', '7', '8']);
    expect(s.sql).not.toContain('2024-01-01');
  });
});

describe('sort', () => {
  /** Stable sort of artifact order, NULLs last in both directions: the contract's order. */
  function sortedIds(keys: { column: keyof Row; direction: 'asc' | 'desc' }[], rows: Row[] = ROWS): number[] {
    const compare = (a: Row, b: Row) => {
      for (const { column, direction } of keys) {
        const [x, y] = [a[column], b[column]];
        if (x === y) continue;
        if (x === null) return 1;
        if (y === null) return -1;
        const order = x < y ? -1 : 1;
        return direction === 'asc' ? order : -order;
      }
      return 0;
    };
    return [...rows].sort(compare).map((r) => r.id);
  }

  it('sorts by several keys, NULLs last, ties in artifact row order across parts', async () => {
    const keys = [
      { column: 'grp', direction: 'asc' },
      { column: 'name', direction: 'desc' },
    ] as const;
    const expected = sortedIds([...keys]);
    // The ties the fixture was built for: 1 before 9 and 6 before 11.
    expect(expected.indexOf(1)).toBeLessThan(expected.indexOf(9));
    expect(expected.indexOf(6)).toBeLessThan(expected.indexOf(11));
    expect(await ids({ sort: [...keys] })).toEqual(expected);
  });

  it('keeps ties in artifact row order when the parts\u2019 file names sort the other way (parts cached under their hashes)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'read-sql-names-'));
    try {
      // Part 0 gets the name that sorts last, part 2 the one that sorts first.
      const renamed = artifact.parts.map((p, i) => {
        const path = join(dir, `${'zyx'[i]}-part.parquet`);
        copyFileSync(p.path, path);
        return { ...p, path };
      });
      const keys = [
        { column: 'grp', direction: 'asc' },
        { column: 'name', direction: 'desc' },
      ] as const;
      const rows = await artifact.run(buildReadStatement(artifact.columns, renamed, { limit: 100, offset: 0, columns: ['id'], sort: [...keys] }));
      expect(rows.map((r) => r[0])).toEqual(sortedIds([...keys]));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('sorts descending with NULLs still last, and a sort column need not be projected', async () => {
    const rows = await artifact.run(statement({ columns: ['name'], sort: [{ column: 'amount', direction: 'desc' }] }));
    const present = ROWS.filter((r) => r.amount !== null).sort((a, b) => Number(b.amount) - Number(a.amount));
    const expected = [...present, ...ROWS.filter((r) => r.amount === null)].map((r) => r.id);
    expect(rows.map((r) => r[0])).toEqual(expected.map((id) => ROWS.find((r) => r.id === id)!.name));
  });

  it('sorts unconstrained numeric as numbers', async () => {
    const byNumber = ROWS.filter((r) => r.n !== null).sort((a, b) => Number(a.n) - Number(b.n)).map((r) => r.id);
    const got = await ids({ sort: [{ column: 'n', direction: 'asc' }] });
    expect(got).toEqual([...byNumber, ...ROWS.filter((r) => r.n === null).map((r) => r.id)]);
  });

  it('refuses an unknown sort column', () => {
    expect(() => statement({ sort: [{ column: 'nope', direction: 'asc' }] })).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR', details: expect.objectContaining({ column: 'nope' }) }));
  });
});

describe('limit and offset', () => {
  const all = ROWS.map((r) => r.id);

  it('returns one row past the limit, so the caller knows whether more exist', async () => {
    expect(await ids({ limit: 3 })).toEqual([1, 2, 3, 4]);
    expect(await ids({ limit: 12 })).toEqual(all);
  });

  it('pages without filter or sort skip whole parts and read only from the part the page starts in', async () => {
    const [first, second, third] = artifact.parts;
    const atSecond = statement({ limit: 2, offset: 4 });
    expect(atSecond.sql).not.toContain(first!.path);
    expect(atSecond.sql).toContain(second!.path);
    expect(await ids({ limit: 2, offset: 4 })).toEqual([5, 6, 7]);
    const inThird = statement({ limit: 5, offset: 10 });
    expect(inThird.sql).not.toContain(second!.path);
    expect(inThird.sql).toContain(third!.path);
    expect(await ids({ limit: 5, offset: 10 })).toEqual([11, 12]);
    // A page may cross a part boundary.
    expect(await ids({ limit: 3, offset: 3 })).toEqual([4, 5, 6, 7]);
  });

  it('every offset of plain paging gives the rows from there on', async () => {
    for (let offset = 0; offset <= all.length + 1; offset++) {
      expect(await ids({ limit: 2, offset }), `offset ${offset}`).toEqual(all.slice(offset, offset + 3));
    }
  });

  it('offsets count rows of the filtered, sorted result', async () => {
    const filters: Filter[] = [{ column: 'flag', op: 'is_not_null' }];
    const sort = [{ column: 'grp', direction: 'desc' as const }];
    const whole = await ids({ filters, sort });
    expect(whole.length).toBeGreaterThan(4);
    const pages: number[] = [];
    for (let offset = 0; offset < whole.length; offset += 2) pages.push(...(await ids({ filters, sort, limit: 2, offset })).slice(0, 2));
    expect(pages).toEqual(whole);
  });
});

describe('hostile column names', () => {
  let hostile: ArtifactFixture;
  const NAMES = [
    { name: 'a"b', type: 'int4' },
    { name: 'two words', type: 'text' },
    { name: 'x', type: 'int4' },
    { name: 'x', type: 'text' },
    // The names read_parquet adds itself to page reads.
    { name: 'filename', type: 'int4' },
    { name: 'file_row_number', type: 'text' },
    { name: 'X', type: 'int4' },
    { name: "it's", type: 'text' },
    { name: '', type: 'int4' },
  ];

  beforeAll(async () => {
    hostile = await artifactFixture(NAMES, [
      [
        [1, 'one two', 10, 'ten', 3, 'r1', 100, 'q1', -1],
        [2, 'three', 20, 'twenty', 1, 'r2', 200, 'q2', -2],
      ],
      [[3, 'four two', 30, 'thirty', 2, 'r3', 300, 'q3', -3]],
    ]);
  });
  afterAll(() => hostile?.close());

  const build = (request: Partial<ReadRequest>) => buildReadStatement(hostile.columns, hostile.parts, { limit: 100, offset: 0, ...request });

  it('reads every column under its own name, whatever it holds', async () => {
    const s = build({});
    expect(s.columns.map((c) => c.name)).toEqual(NAMES.map((c) => c.name));
    expect(await hostile.run(s)).toEqual([
      [1, 'one two', 10, 'ten', 3, 'r1', 100, 'q1', -1],
      [2, 'three', 20, 'twenty', 1, 'r2', 200, 'q2', -2],
      [3, 'four two', 30, 'thirty', 2, 'r3', 300, 'q3', -3],
    ]);
  });

  it('quotes identifiers, doubling a quote inside one', () => {
    const s = build({ filters: [{ column: 'a"b', op: 'gt', value: 1 }] });
    expect(s.sql).toContain('"a""b"');
    expect(s.sql).toContain('"two words"');
  });

  it('filters and sorts on quoted, spaced and reserved names', async () => {
    expect((await hostile.run(build({ columns: ['a"b'], filters: [{ column: 'a"b', op: 'gte', value: 2 }] }))).flat()).toEqual([2, 3]);
    expect((await hostile.run(build({ columns: ['a"b'], filters: [{ column: 'two words', op: 'contains', value: ' two' }] }))).flat()).toEqual([1, 3]);
    expect((await hostile.run(build({ columns: ['a"b'], filters: [{ column: "it's", op: 'eq', value: 'q2' }] }))).flat()).toEqual([2]);
    expect((await hostile.run(build({ columns: ['a"b'], sort: [{ column: 'filename', direction: 'asc' }] }))).flat()).toEqual([2, 3, 1]);
    expect((await hostile.run(build({ columns: ['filename', 'file_row_number'], sort: [{ column: 'X', direction: 'desc' }] })))).toEqual([
      [2, 'r3'],
      [1, 'r2'],
      [3, 'r1'],
    ]);
    expect((await hostile.run(build({ columns: ['a"b'], filters: [{ column: '', op: 'lt', value: -1 }] }))).flat()).toEqual([2, 3]);
  });

  it('a column named file_index (or part_index) does not take the place of the part in the order of ties', async () => {
    const named = await artifactFixture(
      [
        { name: 'file_index', type: 'int4' },
        { name: 'part_index', type: 'int4' },
        { name: 'g', type: 'int4' },
      ],
      [
        [
          [9, 9, 1],
          [8, 8, 2],
        ],
        [
          [0, 0, 1],
          [0, 0, 2],
        ],
      ],
    );
    const dir = mkdtempSync(join(tmpdir(), 'read-sql-names-'));
    try {
      const renamed = named.parts.map((p, i) => {
        const path = join(dir, `${'zy'[i]}-part.parquet`);
        copyFileSync(p.path, path);
        return { ...p, path };
      });
      const rows = await named.run(buildReadStatement(named.columns, renamed, { limit: 100, offset: 0, sort: [{ column: 'g', direction: 'asc' }] }));
      expect(rows).toEqual([
        [9, 9, 1],
        [0, 0, 1],
        [8, 8, 2],
        [0, 0, 2],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      named.close();
    }
  });

  it('a duplicated name projects every column that carries it, and is refused in filters and sort', async () => {
    const s = build({ columns: ['x'] });
    expect(s.columns.map((c) => c.type)).toEqual(['int4', 'text']);
    expect((await hostile.run(s))[0]).toEqual([10, 'ten']);
    for (const request of [{ filters: [{ column: 'x', op: 'eq', value: 10 }] }, { sort: [{ column: 'x', direction: 'asc' as const }] }]) {
      expect(() => build(request)).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR', message: expect.stringContaining('"x" appears 2 times') }));
    }
  });
});
