/**
 * describeQuery on node-postgres, without running the statement: parameter
 * count, column names and types, a table column's numeric precision (and
 * none for a computed one), and PostgreSQL's error with its position.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeQuery } from '../../../src/datasources/postgres/export/describe-query.ts';
import { clientConfig } from '../../../src/datasources/postgres/export/pg-connect.ts';

const SCHEMA = `qtest_describe_${process.pid}`;
let client: pg.Client;

beforeAll(async () => {
  client = new pg.Client(clientConfig(process.env.TEST_DATABASE_URL!));
  await client.connect();
  await client.query(`create schema ${SCHEMA}; create table ${SCHEMA}.t (id int8, price numeric(12,2), label varchar(10), tags text[])`);
});
afterAll(async () => {
  await client?.query(`drop schema if exists ${SCHEMA} cascade`);
  await client?.end();
});

describe('describeQuery', () => {
  it('describes columns and parameters without running the statement', async () => {
    const d = await describeQuery(client, `select id, price, label, tags, price * 2 as doubled, $1::int as p from ${SCHEMA}.t where id = $2`);
    expect(d.paramTypes).toHaveLength(2);
    expect(d.columns.map((c) => [c.name, c.typname, c.numericPrecision, c.numericScale, c.elementTypname])).toEqual([
      ['id', 'int8', null, null, null],
      ['price', 'numeric', 12, 2, null],
      ['label', 'varchar', null, null, null],
      ['tags', '_text', null, null, 'text'],
      ['doubled', 'numeric', null, null, null],
      ['p', 'int4', null, null, null],
    ]);
  });

  it('describes a statement that returns no columns as none', async () => {
    expect((await describeQuery(client, `select from ${SCHEMA}.t`)).columns).toEqual([]);
  });

  it('rejects with PostgreSQL\u2019s error and position, and the session goes on', async () => {
    const sql = `select nope from ${SCHEMA}.t`;
    await expect(describeQuery(client, sql)).rejects.toMatchObject({ code: '42703', position: String(sql.indexOf('nope') + 1), severity: 'ERROR' });
    expect((await client.query('select 1 as one')).rows).toEqual([{ one: '1' }]);
  });
});
