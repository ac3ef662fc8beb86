/**
 * Read-only bypass attempts over HTTP against the real PostgreSQL (the
 * datasource user here is a superuser, the worst case): every one is
 * answered READ_ONLY_VIOLATION or SQL_ERROR, and afterwards the canary
 * table, the roles, the settings and the server's files are as they were.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const C = 'bypass_canary';
let server: TestServer;

const ATTEMPTS: string[] = [
  `delete from ${C}.t`,
  `commit; delete from ${C}.t`,
  `select 1; delete from ${C}.t`,
  `select 1; commit; delete from ${C}.t`,
  `rollback; begin; delete from ${C}.t; commit`,
  `end; delete from ${C}.t`,
  `with d as (delete from ${C}.t returning *) select * from d`,
  `select * from (with d as (delete from ${C}.t returning *) select * from d) x`,
  `with u as (update ${C}.t set v = 'x' returning 1) select count(*) from u`,
  `with i as (insert into ${C}.t values (999, 'x') returning 1) select 1`,
  `insert into ${C}.t select 1000, 'x'`,
  `update ${C}.t set v = 'pwned'`,
  `merge into ${C}.t t using (select 1 id) s on t.id = s.id when matched then delete`,
  `truncate ${C}.t`,
  `drop table ${C}.t`,
  `alter table ${C}.t add column pwned int`,
  `create table ${C}.pwned (id int)`,
  `create role pwned superuser`,
  `grant all on ${C}.t to public`,
  `do $$ begin delete from ${C}.t; end $$`,
  `DO LANGUAGE plpgsql $$ begin execute 'delete from ${C}.t'; end $$`,
  `copy ${C}.t to program 'touch /tmp/sluice-pwned'`,
  `copy (select 1) to '/tmp/sluice-pwned'`,
  `copy ${C}.t from '/etc/hostname'`,
  `set role postgres`,
  `set session authorization postgres`,
  `reset all`,
  `set default_transaction_read_only = off`,
  `select set_config('default_transaction_read_only', 'off', false)`,
  `select pg_read_file('/etc/passwd')`,
  `select pg_catalog.pg_read_binary_file('/etc/passwd')`,
  `select * from pg_ls_dir('/')`,
  `select lo_import('/etc/passwd')`,
  `select lo_export(1, '/tmp/sluice-pwned')`,
  `select pg_terminate_backend(pid) from pg_stat_activity`,
  `select pg_cancel_backend(pg_backend_pid())`,
  `select pg_reload_conf()`,
  `select nextval('${C}.s')`,
  `select setval('${C}.s', 100)`,
  `select pg_advisory_lock(1)`,
  `select * from ${C}.t for update`,
  `select * from (select * from ${C}.t for share) x`,
  `select * into ${C}.pwned from ${C}.t`,
  `explain analyze delete from ${C}.t`,
  `explain (analyze, format json) update ${C}.t set v = 'x'`,
  `/* harmless */ DeLeTe /* really */ FROM ${C}.t`,
  `select 1 /* ; */; delete from ${C}.t`,
  `select 1 -- comment\n; delete from ${C}.t`,
  `SELECT "PG_READ_FILE"('/etc/passwd')`,
  `select query_to_xml('delete from ${C}.t returning 1', true, true, '')`,
  `vacuum ${C}.t`,
  `lock table ${C}.t`,
  `prepare p as delete from ${C}.t`,
  `listen pwned`,
  `notify pwned`,
  `select ('${C}.s'::regclass).nextval`,
];

async function snapshot(): Promise<string> {
  const [rows] = await server.sql.query(`select count(*)::text || ':' || coalesce(string_agg(v, ',' order by id), '') as s from ${C}.t`);
  const [seq] = await server.sql.query(`select last_value::text as v from ${C}.s`);
  const [roles] = await server.sql.query(`select count(*)::text as n from pg_roles where rolname = 'pwned'`);
  const [tables] = await server.sql.query(`select count(*)::text as n from pg_tables where schemaname = '${C}'`);
  const [cols] = await server.sql.query(`select count(*)::text as n from information_schema.columns where table_schema = '${C}'`);
  return [rows!.s, seq!.v, roles!.n, tables!.n, cols!.n].join('|');
}

beforeAll(async () => {
  server = await startTestServer();
  await server.sql.query(`drop schema if exists ${C} cascade; create schema ${C}; create table ${C}.t (id int primary key, v text); insert into ${C}.t values (1, 'a'), (2, 'b'); create sequence ${C}.s`);
});
afterAll(async () => {
  await server?.sql.query(`drop schema if exists ${C} cascade`).catch(() => undefined);
  await server?.stop();
});

describe('read-only bypass corpus', () => {
  it('has at least 40 attempts', () => {
    expect(ATTEMPTS.length).toBeGreaterThanOrEqual(40);
  });

  it('answers every attempt READ_ONLY_VIOLATION or SQL_ERROR and changes nothing', async () => {
    const before = await snapshot();
    for (const sql of ATTEMPTS) {
      const r = await server.request('/api/queries', { body: { sql, materialize: 'never' } });
      expect(['READ_ONLY_VIOLATION', 'SQL_ERROR'], sql).toContain(r.body.errorCode);
      expect(r.status, sql).toBeLessThan(500);
    }
    expect(await snapshot()).toBe(before);
    const { existsSync } = await import('node:fs');
    expect(existsSync('/tmp/sluice-pwned')).toBe(false);
  });
});
