/**
 * The schema routes over HTTP: datasources, the bounded table list with its
 * completeness, search, and one table's columns, keys and estimated size,
 * checked against tables this file creates.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TOKENS, type TestServer } from '../helpers/server.ts';

const SCHEMA = 'rtest_schema';
// A table in public, to show that a name without a schema means public; unique so no other file collides.
const PUBLIC_TABLE = 'rtest_schema_public_probe';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
  await server.sql.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await server.sql.query(`DROP TABLE IF EXISTS public.${PUBLIC_TABLE}`);
  await server.sql.query(`CREATE SCHEMA ${SCHEMA}`);
  await server.sql.query(`
    CREATE TABLE ${SCHEMA}.customers (
      id int8 PRIMARY KEY,
      region text NOT NULL,
      "Display Name" varchar(80)
    );
    CREATE TABLE ${SCHEMA}.orders (
      id int4 GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      customer_id int8 NOT NULL REFERENCES ${SCHEMA}.customers (id),
      amount numeric(12,2) NOT NULL,
      note text,
      created_at timestamptz NOT NULL DEFAULT now(),
      tags text[]
    );
    CREATE TABLE ${SCHEMA}.order_lines (
      order_id int4 REFERENCES ${SCHEMA}.orders (id),
      "line,no" int4,
      sku text,
      CONSTRAINT order_lines_pkey PRIMARY KEY (order_id, "line,no")
    );
    CREATE TABLE ${SCHEMA}.shipments (
      order_id int4,
      "line,no" int4,
      CONSTRAINT shipments_line FOREIGN KEY (order_id, "line,no") REFERENCES ${SCHEMA}.order_lines (order_id, "line,no")
    );
    CREATE TABLE ${SCHEMA}."odd.name" (x int4);
    CREATE VIEW ${SCHEMA}.big_orders AS SELECT * FROM ${SCHEMA}.orders WHERE amount > 100;
    CREATE TABLE public.${PUBLIC_TABLE} (k int4 PRIMARY KEY);
    INSERT INTO ${SCHEMA}.customers SELECT i, 'r' || (i % 3), 'C ' || i FROM generate_series(1, 40) AS i;
    INSERT INTO ${SCHEMA}.orders (customer_id, amount, note) SELECT 1 + i % 40, i * 1.5, CASE WHEN i % 2 = 0 THEN 'n' END FROM generate_series(1, 300) AS i;
    ANALYZE ${SCHEMA}.customers;
    ANALYZE ${SCHEMA}.orders;
  `);
});

afterAll(async () => {
  await server?.sql.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await server?.sql.query(`DROP TABLE IF EXISTS public.${PUBLIC_TABLE}`);
  await server?.stop();
});

const tablesOf = (body: any) => body.data.tables.map((t: { name: string }) => t.name);

describe('GET /api/datasources', () => {
  it('lists the default datasource without its URL', async () => {
    const r = await server.request('/api/datasources', { token: TOKENS.reader });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, errorCode: null });
    expect(r.body.data.datasources).toEqual([{ id: 'default', description: expect.any(String), embedded: false, kind: 'postgres', dialect: 'postgresql' }]);
    expect(JSON.stringify(r.body)).not.toContain('postgres://');
  });
});

describe('GET /api/datasources/{id}/tables', () => {
  it('lists the schema\u2019s tables and views with estimated rows', async () => {
    const r = await server.request(`/api/datasources/default/tables?schema=${SCHEMA}`);
    expect(r.status).toBe(200);
    expect(r.body.data.tables).toEqual([
      { schema: SCHEMA, name: 'big_orders', kind: 'view', estimatedRows: expect.toSatisfy((n: unknown) => n === null || typeof n === 'number') },
      { schema: SCHEMA, name: 'customers', kind: 'table', estimatedRows: 40 },
      { schema: SCHEMA, name: 'odd.name', kind: 'table', estimatedRows: null },
      { schema: SCHEMA, name: 'order_lines', kind: 'table', estimatedRows: null },
      { schema: SCHEMA, name: 'orders', kind: 'table', estimatedRows: 300 },
      { schema: SCHEMA, name: 'shipments', kind: 'table', estimatedRows: null },
    ]);
    expect(r.body.data.completeness).toEqual({ status: 'COMPLETE', returnedRows: 6, totalRows: 6, boundedBy: null, limitSetBy: null });
  });

  it('is bounded by limit and says so', async () => {
    const r = await server.request(`/api/datasources/default/tables?schema=${SCHEMA}&limit=1`);
    expect(r.status).toBe(200);
    expect(tablesOf(r.body)).toEqual(['big_orders']);
    expect(r.body.data.completeness).toEqual({ status: 'INCOMPLETE', returnedRows: 1, totalRows: 6, boundedBy: 'limit', limitSetBy: 'request' });
    expect(r.body.summary).toContain('6');
    const exact = await server.request(`/api/datasources/default/tables?schema=${SCHEMA}&limit=6`);
    expect(exact.body.data.completeness).toEqual({ status: 'COMPLETE', returnedRows: 6, totalRows: 6, boundedBy: null, limitSetBy: null });
  });

  it('searches table names case-insensitively, as a plain substring', async () => {
    const r = await server.request(`/api/datasources/default/tables?schema=${SCHEMA}&search=ORDER`);
    expect(tablesOf(r.body)).toEqual(['big_orders', 'order_lines', 'orders']);
    const wildcard = await server.request(`/api/datasources/default/tables?schema=${SCHEMA}&search=${encodeURIComponent('order_')}`);
    expect(tablesOf(wildcard.body)).toEqual(['order_lines']);
    const percent = await server.request(`/api/datasources/default/tables?schema=${SCHEMA}&search=${encodeURIComponent('%')}`);
    expect(tablesOf(percent.body)).toEqual([]);
    const none = await server.request(`/api/datasources/default/tables?schema=${SCHEMA}&search=zzz`);
    expect(none.body.data).toEqual({ tables: [], completeness: { status: 'COMPLETE', returnedRows: 0, totalRows: 0, boundedBy: null, limitSetBy: null } });
  });

  it('without schema lists every schema but the system ones', async () => {
    const r = await server.request(`/api/datasources/default/tables?search=rtest_schema_public&limit=1000`);
    expect(r.body.data.tables).toEqual([{ schema: 'public', name: PUBLIC_TABLE, kind: 'table', estimatedRows: null }]);
    const all = await server.request('/api/datasources/default/tables?limit=1000');
    const schemas = new Set(all.body.data.tables.map((t: { schema: string }) => t.schema));
    expect(schemas.has('pg_catalog')).toBe(false);
    expect(schemas.has('information_schema')).toBe(false);
  });

  it('refuses a limit out of range and an unknown datasource', async () => {
    for (const limit of ['0', '1001', 'x']) {
      const r = await server.request(`/api/datasources/default/tables?limit=${limit}`);
      expect(r.status).toBe(400);
      expect(r.body.errorCode).toBe('VALIDATION_ERROR');
    }
    const r = await server.request('/api/datasources/nowhere/tables');
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ success: false, data: null, errorCode: 'NOT_FOUND' });
  });
});

describe('GET /api/datasources/{id}/tables/{schema.table}', () => {
  it('describes columns, primary key, foreign keys and estimated rows', async () => {
    const r = await server.request(`/api/datasources/default/tables/${SCHEMA}.orders`, { token: TOKENS.reader });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, errorCode: null });
    expect(r.body.data).toEqual({
      schema: SCHEMA,
      name: 'orders',
      kind: 'table',
      estimatedRows: 300,
      columns: [
        { name: 'id', type: 'integer', nullable: false },
        { name: 'customer_id', type: 'bigint', nullable: false },
        { name: 'amount', type: 'numeric(12,2)', nullable: false },
        { name: 'note', type: 'text', nullable: true },
        { name: 'created_at', type: 'timestamp with time zone', nullable: false },
        { name: 'tags', type: 'text[]', nullable: true },
      ],
      primaryKey: ['id'],
      foreignKeys: [{ name: 'orders_customer_id_fkey', columns: ['customer_id'], references: { schema: SCHEMA, table: 'customers', columns: ['id'] } }],
    });
  });

  it('keeps composite keys in key order, even with a comma in a column name', async () => {
    const lines = await server.request(`/api/datasources/default/tables/${SCHEMA}.order_lines`);
    expect(lines.body.data.primaryKey).toEqual(['order_id', 'line,no']);
    expect(lines.body.data.foreignKeys).toEqual([
      { name: 'order_lines_order_id_fkey', columns: ['order_id'], references: { schema: SCHEMA, table: 'orders', columns: ['id'] } },
    ]);
    const shipments = await server.request(`/api/datasources/default/tables/${SCHEMA}.shipments`);
    expect(shipments.body.data.primaryKey).toEqual([]);
    expect(shipments.body.data.foreignKeys).toEqual([
      { name: 'shipments_line', columns: ['order_id', 'line,no'], references: { schema: SCHEMA, table: 'order_lines', columns: ['order_id', 'line,no'] } },
    ]);
  });

  it('describes a view and a quoted column name', async () => {
    const view = await server.request(`/api/datasources/default/tables/${SCHEMA}.big_orders`);
    expect(view.body.data.kind).toBe('view');
    expect(view.body.data.columns.map((c: { name: string }) => c.name)).toEqual(['id', 'customer_id', 'amount', 'note', 'created_at', 'tags']);
    expect(view.body.data.primaryKey).toEqual([]);
    const customers = await server.request(`/api/datasources/default/tables/${SCHEMA}.customers`);
    expect(customers.body.data.columns).toContainEqual({ name: 'Display Name', type: 'character varying(80)', nullable: true });
  });

  it('reads a quoted name that holds a dot', async () => {
    const r = await server.request(`/api/datasources/default/tables/${SCHEMA}.${encodeURIComponent('"odd.name"')}`);
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ schema: SCHEMA, name: 'odd.name', columns: [{ name: 'x', type: 'integer', nullable: true }] });
  });

  it('takes a name without a schema to be in public', async () => {
    const r = await server.request(`/api/datasources/default/tables/${PUBLIC_TABLE}`);
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ schema: 'public', name: PUBLIC_TABLE, primaryKey: ['k'] });
    // shipments lives in rtest_schema, not public (the sample dataset has a public.orders).
    const elsewhere = await server.request('/api/datasources/default/tables/shipments');
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.errorCode).toBe('NOT_FOUND');
  });

  it('answers NOT_FOUND for an unknown table or schema, and hides system schemas', async () => {
    for (const name of [`${SCHEMA}.nope`, `nope_schema.orders`, 'pg_catalog.pg_class', 'information_schema.tables']) {
      const r = await server.request(`/api/datasources/default/tables/${name}`);
      expect(r.status, name).toBe(404);
      expect(r.body).toMatchObject({ success: false, data: null, errorCode: 'NOT_FOUND' });
    }
  });

  it('refuses a name with too many parts', async () => {
    const r = await server.request(`/api/datasources/default/tables/db.${SCHEMA}.orders`);
    expect(r.status).toBe(400);
    expect(r.body.errorCode).toBe('VALIDATION_ERROR');
  });
});
