/**
 * Session bundles as tests take them apart and put them back together:
 * entries read from a tar with tar-stream, a tar written from entries, and
 * the raw HTTP calls for bundles (binary bodies the JSON helper cannot send).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { extract, pack } from 'tar-stream';
import type { TestServer } from '../../helpers/server.ts';
import { openSqlite, type SqliteDatabase } from '../../../src/runtime/sqlite.ts';

export interface TarEntry {
  name: string;
  data: Buffer;
  type?: 'file' | 'directory' | 'symlink' | undefined;
}

export async function untar(bytes: Buffer): Promise<TarEntry[]> {
  const ex = extract();
  const entries: TarEntry[] = [];
  const done = (async () => {
    for await (const entry of ex) {
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      entries.push({ name: entry.header.name, data: Buffer.concat(chunks), type: entry.header.type as TarEntry['type'] });
    }
  })();
  ex.end(bytes);
  await done;
  return entries;
}

export async function tar(entries: TarEntry[]): Promise<Buffer> {
  const p = pack();
  const chunks: Buffer[] = [];
  const collected = (async () => {
    for await (const chunk of p) chunks.push(chunk as Buffer);
  })();
  for (const e of entries) {
    await new Promise<void>((resolve, reject) => {
      if (e.type === 'directory') p.entry({ name: e.name, type: 'directory' }, (err) => (err ? reject(err) : resolve()));
      else p.entry({ name: e.name, size: e.data.length }, e.data, (err) => (err ? reject(err) : resolve()));
    });
  }
  p.finalize();
  await collected;
  return Buffer.concat(chunks);
}

export async function exportBundle(server: TestServer, sessionId: string, token: string): Promise<{ status: number; bytes: Buffer; type: string | null }> {
  const response = await fetch(`${server.sluice.url}/api/sessions/${encodeURIComponent(sessionId)}/export`, { headers: { 'x-token': token } });
  return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()), type: response.headers.get('content-type') };
}

export async function importBundle(server: TestServer, sessionId: string, token: string, body: Buffer, contentType = 'application/x-tar'): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server.sluice.url}/api/sessions/${encodeURIComponent(sessionId)}/import`, {
    method: 'POST',
    headers: { 'x-token': token, 'content-type': contentType },
    body: new Uint8Array(body),
  });
  return { status: response.status, body: await response.json() };
}

/** Every stored upload of a server's local byte store, as `<ab>/<location>`. */
export function storedLocations(server: TestServer): string[] {
  const objects = join(server.dataDir, 'artifacts', 'objects');
  let fanOuts: string[] = [];
  try {
    fanOuts = readdirSync(objects);
  } catch {
    return [];
  }
  return fanOuts.flatMap((f) => readdirSync(join(objects, f)).map((l) => `${f}/${l}`)).sort();
}

/** What the catalog holds, counted straight from its file: rows of artifacts and blobs. */
export function catalogCounts(server: TestServer): { artifacts: number; blobs: number } {
  return withCatalog(server, (db) => {
    const artifacts = db.prepare('SELECT COUNT(*) AS n FROM artifacts').get<{ n: number }>()!.n;
    const blobs = db.prepare('SELECT COUNT(*) AS n FROM blobs').get<{ n: number }>()!.n;
    return { artifacts, blobs };
  });
}

/** The catalog's file opened through the runtime's own SQLite (node:sqlite, bun:sqlite or better-sqlite3, as the server does). */
export function withCatalog<T>(server: TestServer, fn: (db: SqliteDatabase) => T): T {
  const db = openSqlite(join(server.dataDir, 'artifacts', 'catalog.sqlite'));
  try {
    return fn(db);
  } finally {
    db.close();
  }
}
