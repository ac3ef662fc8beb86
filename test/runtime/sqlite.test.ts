/**
 * openSqlite behaves the same on every driver it picks: better-sqlite3 on
 * Node 20, node:sqlite on Node 22.13+ and Deno, bun:sqlite on Bun. The
 * runtime running the suite is one of the Node lines; Deno and Bun run the
 * same checks from a fixture.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = process.cwd();
const CONTRACT = 'test/runtime/fixtures/sqlite-contract.ts';

const EXPECTED = {
  journalMode: 'wal',
  synchronous: 2,
  foreignKeys: 1,
  busyTimeout: 5000,
  inserted: 1,
  rolledBack: 'boom',
  foreignKey: true,
  noRow: 'undefined',
  // c rolled back with its transaction; inside d's, e's nested one committed and x's rolled back alone.
  names: ['a', 'b', 'd', 'e', 'f'],
  deleted: 1,
  reopened: ['b', 'd', 'e', 'f'],
};

describe.each([
  [`node ${process.versions.node}`, process.execPath, [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), CONTRACT]],
  ['deno', join(ROOT, 'node_modules/.bin/deno'), ['run', '--allow-all', CONTRACT]],
  ['bun', join(ROOT, 'node_modules/.bin/bun'), [CONTRACT]],
])('openSqlite on %s', (_, command, args) => {
  it('keeps WAL, full sync, foreign keys, a busy timeout, transactions with savepoints, and undefined for no row', async () => {
    const { stdout } = await run(command, args, { cwd: ROOT });
    expect(JSON.parse(stdout)).toEqual(EXPECTED);
  }, 60_000);
});
