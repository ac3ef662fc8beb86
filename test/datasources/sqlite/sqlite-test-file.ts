/**
 * A SQLite file a test builds in a temp dir, and a writable connection to
 * it for setup, with the same library the driver uses on this runtime
 * (better-sqlite3 on Node 20, node:sqlite from Node 22.13). It also tells
 * whether some connection is reading the file: SQLite has no list of
 * running statements, but a reader holds a shared lock for as long as its
 * statement runs, and an exclusive lock cannot be had while it does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { currentLibrary } from '../../../src/datasources/sqlite/engine/open-connection.ts';

interface WritableStatement {
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): unknown;
}

export interface WritableDatabase {
  exec(sql: string): void;
  prepare(sql: string): WritableStatement;
  function(name: string, fn: () => number): void;
  close(): void;
}

type Open = (file: string, timeoutMs: number) => WritableDatabase;

async function opener(): Promise<Open> {
  if (currentLibrary() === 'node:sqlite') {
    const specifier = 'node:sqlite';
    const { DatabaseSync } = (await import(specifier)) as { DatabaseSync: new (file: string, options: { timeout: number }) => WritableDatabase };
    return (file, timeout) => new DatabaseSync(file, { timeout });
  }
  const { default: Database } = await import('better-sqlite3');
  return (file, timeout) => {
    const db = new Database(file, { timeout });
    return { exec: (sql) => void db.exec(sql), prepare: (sql) => db.prepare(sql), function: (name, fn) => void db.function(name, fn), close: () => void db.close() };
  };
}

export class SqliteTestFile {
  readonly dir = mkdtempSync(join(tmpdir(), 'sluice-sqlite-'));
  readonly file: string;
  readonly url: string;
  #open: Open | null = null;

  constructor(name = 'contract.db') {
    this.file = join(this.dir, name);
    this.url = `sqlite://${this.file}`;
  }

  async writable(timeoutMs = 5_000): Promise<WritableDatabase> {
    this.#open ??= await opener();
    return this.#open(this.file, timeoutMs);
  }

  /** Whether a connection other than ours holds a read lock on the file: an exclusive lock cannot be had at once. */
  readerActive(): boolean {
    if (this.#open === null) throw new Error('open a writable connection first');
    const probe = this.#open(this.file, 0);
    try {
      probe.exec('BEGIN EXCLUSIVE');
      probe.exec('ROLLBACK');
      return false;
    } catch (error) {
      if (/locked|busy/i.test((error as Error).message)) return true;
      throw error;
    } finally {
      probe.close();
    }
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
