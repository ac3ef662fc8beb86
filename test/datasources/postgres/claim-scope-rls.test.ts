/**
 * Row-level scope from claims, against a REAL row-level security policy: a
 * role that is not a superuser (superusers bypass RLS) reads a table with
 * ENABLE and FORCE ROW LEVEL SECURITY and a policy on
 * current_setting('sluice.tenant', true); the datasource connects as that
 * role with claimSettings {"sluice.tenant": "tenant"}; callers sign in with
 * JWTs from a real issuer on loopback (oauth2-mock-server). Each tenant sees
 * its own rows through queries, artifact reads and aggregates; a caller
 * without the claim is refused; no statement can lift its scope; the
 * setting never outlives the query's transaction.
 *
 * Needs a real PostgreSQL (TEST_DATABASE_URL): the embedded database has one
 * superuser and no roles to speak of, so the suite skips there, saying so.
 */
import { OAuth2Server } from 'oauth2-mock-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAdminSql, type AdminSql } from '../../helpers/admin-sql.ts';
import { EMBEDDED, startTestServer, TOKENS, type TestServer } from '../../helpers/server.ts';
import { skipNote } from '../../helpers/skip-note.ts';

const SKIP = EMBEDDED ? 'needs a real PostgreSQL with roles (TEST_DATABASE_URL); the embedded database has only a superuser, which bypasses row-level security' : null;

const ROLE = 'h_rls_tenant_reader';
const SCHEMA = 'h_rls_scope';
const AUDIENCE = 'sluice-api';
/** Rows per tenant: each tenant's count is its own, so a count tells whose rows were seen. */
const ROWS = { acme: 3, globex: 5, initech: 0 } as const;

let idp: OAuth2Server;
let server: TestServer;

/** A JWT from the issuer for `sub`, with `claims` added (undefined leaves a claim out). */
async function jwt(sub: string, claims: Record<string, unknown> = {}): Promise<string> {
  return idp.issuer.buildToken({
    scopesOrTransform: (_header, payload) => {
      Object.assign(payload, { sub, aud: AUDIENCE, sluice_roles: ['analyst'] }, claims);
    },
  });
}

const as = (token: string) => ({ token: null, headers: { authorization: `Bearer ${token}` } });

async function query(token: string, sql: string, extra: Record<string, unknown> = {}) {
  return server.request('/api/queries', { ...as(token), body: { datasource: 'scoped', sql, ...extra } });
}

async function count(token: string, datasource = 'scoped'): Promise<string> {
  const r = await server.request('/api/queries', { ...as(token), body: { datasource, sql: `SELECT count(*) AS n FROM ${SCHEMA}.orders` } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data.preview.rows[0][0] as string;
}

async function setUp(admin: AdminSql): Promise<void> {
  await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await admin.query(`DO $$ BEGIN
      IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${ROLE}') THEN CREATE ROLE ${ROLE} LOGIN NOSUPERUSER NOBYPASSRLS; END IF;
    END $$`);
  await admin.query(`CREATE SCHEMA ${SCHEMA}`);
  await admin.query(`CREATE TABLE ${SCHEMA}.orders (id int PRIMARY KEY, tenant text NOT NULL, amount int NOT NULL)`);
  let id = 0;
  for (const [tenant, n] of Object.entries(ROWS)) {
    for (let i = 0; i < n; i += 1) await admin.query(`INSERT INTO ${SCHEMA}.orders VALUES ($1, $2, $3)`, [++id, tenant, 10 * id]);
  }
  await admin.query(`ALTER TABLE ${SCHEMA}.orders ENABLE ROW LEVEL SECURITY`);
  await admin.query(`ALTER TABLE ${SCHEMA}.orders FORCE ROW LEVEL SECURITY`);
  await admin.query(`CREATE POLICY tenant_rows ON ${SCHEMA}.orders FOR SELECT USING (tenant = current_setting('sluice.tenant', true))`);
  await admin.query(`GRANT USAGE ON SCHEMA ${SCHEMA} TO ${ROLE}`);
  await admin.query(`GRANT SELECT ON ${SCHEMA}.orders TO ${ROLE}`);
  // Statistics, so the engine has a row estimate (of every tenant's rows) to give.
  await admin.query(`ANALYZE ${SCHEMA}.orders`);
}

describe.skipIf(SKIP !== null)(skipNote(SKIP !== null, 'row-level scope from claims on a real policy', SKIP ?? ''), () => {
  let acme: string;
  let globex: string;

  beforeAll(async () => {
    const base = process.env.TEST_DATABASE_URL!;
    const admin = openAdminSql(base);
    try {
      await setUp(admin);
    } finally {
      await admin.end();
    }
    const roleUrl = new URL(base);
    roleUrl.username = ROLE;
    roleUrl.password = '';
    idp = new OAuth2Server();
    await idp.issuer.keys.generate('RS256');
    await idp.start(0, '127.0.0.1');
    idp.issuer.url = `http://127.0.0.1:${idp.address().port}`;
    server = await startTestServer({
      SLUICE_OIDC_ISSUER: idp.issuer.url,
      SLUICE_OIDC_AUDIENCE: AUDIENCE,
      // One worker: every export on a URL shares one session, so a setting that outlived its transaction would show.
      SLUICE_QUERY_WORKERS: '1',
      SLUICE_DATASOURCES: JSON.stringify([
        { id: 'scoped', url: roleUrl.href, claimSettings: { 'sluice.tenant': 'tenant' } },
        // The same role and URL without scope: the policy then matches no row.
        { id: 'unscoped', url: roleUrl.href },
      ]),
    });
    acme = await jwt('alice', { tenant: 'acme' });
    globex = await jwt('bob', { tenant: 'globex' });
  });

  afterAll(async () => {
    await server?.stop();
    await idp?.stop();
  });

  it('the datasource role is not a superuser and cannot bypass the policy', async () => {
    const [role] = await server.sql.query<{ rolsuper: boolean; rolbypassrls: boolean }>('SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = $1', [ROLE]);
    expect(role).toEqual({ rolsuper: false, rolbypassrls: false });
  });

  it('two tenants see their own counts through POST /api/queries', async () => {
    expect(await count(acme)).toBe(String(ROWS.acme));
    expect(await count(globex)).toBe(String(ROWS.globex));
    // Interleaved on the one worker session: each query has its own caller's value, never the last one's.
    const [a, b, c] = await Promise.all([count(globex), count(acme), count(globex)]);
    expect([a, b, c]).toEqual([String(ROWS.globex), String(ROWS.acme), String(ROWS.globex)]);
  });

  it('the setting ends with the transaction: the same session without scope sees no row afterwards', async () => {
    expect(await count(acme)).toBe(String(ROWS.acme));
    const r = await server.request('/api/queries', { ...as(acme), body: { datasource: 'unscoped', sql: `SELECT count(*), coalesce(current_setting('sluice.tenant', true), '') FROM ${SCHEMA}.orders` } });
    expect(r.status).toBe(200);
    expect(r.body.data.preview.rows[0]).toEqual(['0', '']);
  });

  it('the claim value is bound, never spliced: a value full of quotes is only a value', async () => {
    const hostile = await jwt('mallory', { tenant: "acme' OR '1'='1" });
    expect(await count(hostile)).toBe('0');
    const r = await query(hostile, `SELECT current_setting('sluice.tenant')`);
    expect(r.body.data.preview.rows[0]).toEqual(["acme' OR '1'='1"]);
  });

  it('artifacts keep their tenant: reads and aggregates give the rows made under the claim, and only to their principal', async () => {
    const made = await query(acme, `SELECT id, tenant, amount FROM ${SCHEMA}.orders ORDER BY id`, { materialize: 'always' });
    expect(made.body.data.artifact.decision).toBe('CREATED');
    const id = made.body.data.artifact.id as string;
    const read = await server.request(`/api/artifacts/${id}/read`, { ...as(acme), body: {} });
    expect(read.status).toBe(200);
    expect(read.body.data.rows).toHaveLength(ROWS.acme);
    expect(new Set(read.body.data.rows.map((row: unknown[]) => row[1]))).toEqual(new Set(['acme']));
    const sum = await server.request(`/api/artifacts/${id}/aggregate`, { ...as(acme), body: { groupBy: ['tenant'], metrics: [{ fn: 'count' }] } });
    expect(sum.status).toBe(200);
    expect(sum.body.data.rows).toEqual([['acme', String(ROWS.acme)]]);
    // Another tenant's principal, and a static token, cannot read it: it does not exist for them.
    for (const caller of [as(globex), { token: TOKENS.admin }]) {
      expect((await server.request(`/api/artifacts/${id}/read`, { ...caller, body: {} })).status).toBe(404);
      expect((await server.request(`/api/artifacts/${id}/aggregate`, { ...caller, body: { metrics: [{ fn: 'count' }] } })).status).toBe(404);
    }
  });

  it('the same SQL never hands one tenant another tenant\u2019s artifact, nor one principal its artifact under another claim value', async () => {
    const sql = `SELECT id, tenant FROM ${SCHEMA}.orders ORDER BY id`;
    const byAcme = await query(acme, sql, { materialize: 'always' });
    const byGlobex = await query(globex, sql, { materialize: 'always' });
    // alice again, now holding globex's claim value: her own artifact of this SQL holds acme's rows and must not come back.
    const aliceAsGlobex = await query(await jwt('alice', { tenant: 'globex' }), sql, { materialize: 'always' });
    const aliceAsAcme = await query(await jwt('alice', { tenant: 'acme' }), sql, { materialize: 'always' });
    const ids = [byAcme, byGlobex, aliceAsGlobex].map((r) => r.body.data.artifact.id as string);
    expect(new Set(ids).size).toBe(3);
    const tenantsOf = async (token: string, id: string) => {
      const r = await server.request(`/api/artifacts/${id}/read`, { ...as(token), body: { columns: ['tenant'] } });
      expect(r.status).toBe(200);
      return [...new Set(r.body.data.rows.map((row: unknown[]) => row[0]))];
    };
    expect(await tenantsOf(acme, ids[0]!)).toEqual(['acme']);
    expect(await tenantsOf(globex, ids[1]!)).toEqual(['globex']);
    expect(await tenantsOf(acme, ids[2]!)).toEqual(['globex']);
    // A repeat under the same claim value is the same result: reusing the first artifact shows nothing new.
    expect(aliceAsAcme.body.data.artifact.id).toBe(ids[0]);
  });

  it('refuses a caller without the claim, or with one it cannot use, with FORBIDDEN before anything runs', async () => {
    const callers: [string, { token: string | null; headers?: Record<string, string> }][] = [
      ['an OIDC caller without the claim', as(await jwt('carol'))],
      ['a null claim', as(await jwt('carol', { tenant: null }))],
      ['a number', as(await jwt('carol', { tenant: 42 }))],
      ['a list', as(await jwt('carol', { tenant: ['acme', 'globex'] }))],
      ['an object', as(await jwt('carol', { tenant: { id: 'acme' } }))],
      ['an empty string', as(await jwt('carol', { tenant: '' }))],
      ['an over-long value', as(await jwt('carol', { tenant: 'a'.repeat(257) }))],
      ['a value with a NUL', as(await jwt('carol', { tenant: 'acme\u0000' }))],
      ['a static token (no claims)', { token: TOKENS.admin }],
    ];
    for (const [label, caller] of callers) {
      const r = await server.request('/api/queries', { ...caller, body: { datasource: 'scoped', sql: `SELECT count(*) FROM ${SCHEMA}.orders` } });
      expect(r.status, label).toBe(403);
      expect(r.body.errorCode, label).toBe('FORBIDDEN');
      expect(r.body.summary, label).toMatch(/^Datasource "scoped" shows each caller the rows its identity provider's claims allow, and .+\.$/);
      expect(r.body.data, label).toBeNull();
      // Schema lookups on that datasource are refused too; the datasource is still listed.
      const tables = await server.request('/api/datasources/scoped/tables', caller);
      expect(tables.status, label).toBe(403);
      expect(tables.body.errorCode, label).toBe('FORBIDDEN');
    }
    // Nothing ran: the caller has no query and no artifact.
    const carol = as(await jwt('carol'));
    const artifacts = await server.request('/api/artifacts', carol);
    expect(artifacts.body.data.artifacts).toEqual([]);
    // The value of another caller's claim is never named in a refusal.
    const refusal = await server.request('/api/queries', { ...as(await jwt('carol', { tenant: 'x'.repeat(300) })), body: { datasource: 'scoped', sql: 'SELECT 1' } });
    expect(JSON.stringify(refusal.body)).not.toContain('x'.repeat(20));
    // A datasource without scope still serves the same callers.
    expect((await server.request('/api/queries', { ...carol, body: { datasource: 'unscoped', sql: 'SELECT 1' } })).status).toBe(200);
  });

  it.each([
    ['set_config, session-wide', `SELECT set_config('sluice.tenant', 'globex', false)`],
    ['set_config, transaction-local', `SELECT set_config('sluice.tenant', 'globex', true)`],
    ['set_config qualified and quoted', `SELECT "pg_catalog"."set_config"('sluice.tenant', 'globex', true)`],
    ['set_config in a subquery beside the table', `SELECT count(*) FROM ${SCHEMA}.orders WHERE (SELECT set_config('sluice.tenant', 'globex', true)) IS NOT NULL`],
    ['set_config in a CTE', `WITH s AS (SELECT set_config('sluice.tenant', 'globex', true) AS v) SELECT count(*) FROM ${SCHEMA}.orders, s`],
    ['set_config in a lateral join', `SELECT count(*) FROM (SELECT 1) x CROSS JOIN LATERAL (SELECT set_config('sluice.tenant', 'globex', true)) s, ${SCHEMA}.orders`],
    ['set_config under EXPLAIN ANALYZE', `EXPLAIN ANALYZE SELECT set_config('sluice.tenant', 'globex', true)`],
    ['set_config as SQL text', `SELECT query_to_xml('SELECT set_config(''sluice.tenant'', ''globex'', true)', true, false, '')`],
    ['SET', `SET sluice.tenant = 'globex'`],
    ['SET LOCAL', `SET LOCAL sluice.tenant TO 'globex'`],
    ['SET then SELECT', `SET sluice.tenant = 'globex'; SELECT count(*) FROM ${SCHEMA}.orders`],
    ['RESET', `RESET sluice.tenant`],
    ['RESET ALL', `RESET ALL`],
    ['DISCARD ALL', `DISCARD ALL`],
    ['SET ROLE', `SET ROLE postgres`],
    ['SET SESSION AUTHORIZATION', `SET SESSION AUTHORIZATION postgres`],
    ['a DO block', `DO $$ BEGIN PERFORM set_config('sluice.tenant', 'globex', false); END $$`],
    ['a function made for it', `CREATE FUNCTION h_rls_lift() RETURNS text LANGUAGE sql AS $$ SELECT set_config('sluice.tenant', 'globex', false) $$`],
    ['PREPARE', `PREPARE lift AS SELECT set_config('sluice.tenant', 'globex', false)`],
    ['turning the policy off', `ALTER TABLE ${SCHEMA}.orders DISABLE ROW LEVEL SECURITY`],
    ['a COMMIT to leave the transaction', `COMMIT; SELECT set_config('sluice.tenant', 'globex', false)`],
  ])('a query cannot lift its scope: %s is refused and the tenant still sees only its rows', async (_, sql) => {
    const r = await query(acme, sql);
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(['READ_ONLY_VIOLATION', 'VALIDATION_ERROR']).toContain(r.body.errorCode);
    expect(JSON.stringify(r.body)).not.toContain('"globex"');
    expect(await count(acme)).toBe(String(ROWS.acme));
    expect(await count(globex)).toBe(String(ROWS.globex));
  });

  it('schema lookups on the scoped datasource leave out the engine\u2019s row estimates, which count every tenant', async () => {
    const total = Object.values(ROWS).reduce<number>((a, b) => a + b, 0);
    const find = (r: { body: any }) => r.body.data.tables.find((t: { schema: string; name: string }) => t.schema === SCHEMA && t.name === 'orders');
    const plain = await server.request(`/api/datasources/unscoped/tables?schema=${SCHEMA}`, as(acme));
    expect(find(plain).estimatedRows).toBe(total);
    const listed = await server.request(`/api/datasources/scoped/tables?schema=${SCHEMA}`, as(acme));
    expect(listed.status).toBe(200);
    expect(find(listed).estimatedRows).toBeNull();
    const detail = await server.request(`/api/datasources/scoped/tables/${SCHEMA}.orders`, as(acme));
    expect(detail.status).toBe(200);
    expect(detail.body.data.estimatedRows).toBeNull();
    expect(detail.body.data.columns.map((c: { name: string }) => c.name)).toEqual(['id', 'tenant', 'amount']);
  });

  it('reading the setting is fine, and a filter cannot widen the policy', async () => {
    const r = await query(acme, `SELECT current_setting('sluice.tenant', true), count(*) FILTER (WHERE tenant = 'globex') FROM ${SCHEMA}.orders`);
    expect(r.body.data.preview.rows[0]).toEqual(['acme', '0']);
  });
});
