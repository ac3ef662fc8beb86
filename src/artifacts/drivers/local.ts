/**
 * The local artifact store: Parquet parts in content-addressed directories
 * under the data dir, and an embedded SQLite catalog. Commit moves the
 * staged directory into place with one rename and then records it in one
 * catalog transaction (with the quota counters); a crash between the two
 * leaves only unreferenced bytes, never a catalog row without bytes.
 * Reads run in DuckDB on a worker pool handed in by the caller.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { SluiceError } from '../../errors.ts';
import { openSqlite, type SqliteDatabase } from '../../runtime/sqlite.ts';
import { buildReadStatement, type BoundValue } from '../read-sql.ts';
import { FILTER_OPS, type ArtifactMeta, type ArtifactPage, type ArtifactStore, type Capabilities, type CommitOutcome, type Owner, type ReadPage, type ReadRequest, type StagedResult } from '../types.ts';
import { CATALOG_SCHEMA } from './catalog-schema.ts';
import { ArtifactRows, type ArtifactRow } from './artifact-rows.ts';

export type ReadRunner = (sql: string, params: BoundValue[]) => Promise<unknown[][]>;

export interface LocalStoreOptions {
  dataDir: string;
  principalQuotaBytes: number;
  workspaceQuotaBytes: number;
  runRead: ReadRunner;
  now?: () => Date;
}

const CAPABILITIES: Capabilities = {
  projection: true,
  filterOps: [...FILTER_OPS],
  sort: true,
  aggregate: true,
  formats: ['parquet', 'csv', 'jsonl'],
};

export function createLocalStore(options: LocalStoreOptions): ArtifactStore {
  const root = join(options.dataDir, 'artifacts');
  const stagingRoot = join(root, 'staging');
  const objectsRoot = join(root, 'objects');
  mkdirSync(stagingRoot, { recursive: true });
  mkdirSync(objectsRoot, { recursive: true });
  const db: SqliteDatabase = openSqlite(join(root, 'catalog.sqlite'));
  db.exec(CATALOG_SCHEMA);
  const rows = new ArtifactRows(db);
  const now = options.now ?? (() => new Date());
  // Only directories left by an earlier process are leftovers; exports of this one stage beside them.
  const leftovers = readdirSync(stagingRoot);

  function readable(principal: string, id: string): ArtifactRow {
    const row = rows.find(principal, id);
    if (row === undefined || row.state === 'DELETED') {
      throw new SluiceError('NOT_FOUND', `No artifact "${id}" exists for this caller.`);
    }
    if (row.state === 'EXPIRED' || row.expires_at <= now().toISOString()) {
      throw new SluiceError('ARTIFACT_EXPIRED', `Artifact "${id}" expired at ${row.expires_at}; run the query again to recreate it.`, {
        expiresAt: row.expires_at,
      });
    }
    return row;
  }

  const commit = (owner: Owner, staged: StagedResult, ttlSeconds: number): CommitOutcome => {
    const hash = createHash('sha256').update(staged.parts.map((p) => p.sha256).join('\n')).digest('hex');
    const size = staged.parts.reduce((sum, p) => sum + p.bytes, 0);
    const existing = rows.blob(hash);
    const usage = rows.principalUsage(owner.principal);
    const workspace = rows.workspaceUsage();
    if (usage.logical_bytes + size > options.principalQuotaBytes) {
      rmSync(staged.stagingDir, { recursive: true, force: true });
      return quotaDenied(`This artifact (${size} bytes) would take ${owner.principal} past the quota of ${options.principalQuotaBytes} bytes.`);
    }
    if (existing === undefined && workspace.physical_bytes + size > options.workspaceQuotaBytes) {
      rmSync(staged.stagingDir, { recursive: true, force: true });
      return quotaDenied(`The workspace has no room for ${size} more bytes (quota ${options.workspaceQuotaBytes}).`);
    }
    const location = join(hash.slice(0, 2), hash);
    if (existing === undefined) {
      mkdirSync(join(objectsRoot, hash.slice(0, 2)), { recursive: true });
      // A leftover from a crash after an earlier rename holds the same bytes: replace it.
      rmSync(join(objectsRoot, location), { recursive: true, force: true });
      renameSync(staged.stagingDir, join(objectsRoot, location));
    } else {
      rmSync(staged.stagingDir, { recursive: true, force: true });
    }
    const created = now();
    const meta: ArtifactMeta = {
      id: `art_${randomUUID().replaceAll('-', '')}`,
      state: 'COMMITTED',
      principal: owner.principal,
      sessionId: owner.sessionId,
      sql: staged.sql,
      datasource: staged.datasource,
      columns: staged.columns,
      rowCount: staged.rowCount,
      sizeBytes: size,
      coverage: staged.coverage,
      boundedBy: staged.boundedBy,
      createdAt: created.toISOString(),
      expiresAt: new Date(created.getTime() + ttlSeconds * 1000).toISOString(),
    };
    db.transaction(() => {
      if (existing === undefined) rows.insertBlob(hash, location, staged.parts, size);
      else rows.addBlobRef(hash);
      rows.insertArtifact(meta, hash);
    })();
    return { decision: 'CREATED', artifact: meta };
  };

  return {
    capabilities: CAPABILITIES,
    stagingDir: () => {
      const dir = join(stagingRoot, randomUUID());
      mkdirSync(dir, { recursive: true });
      return dir;
    },
    commit,
    abort: (dir) => rmSync(dir, { recursive: true, force: true }),
    get: (principal, id) => rows.toMeta(readable(principal, id)),
    async read(principal: string, id: string, request: ReadRequest): Promise<ReadPage> {
      const row = readable(principal, id);
      const blob = rows.blob(row.hash)!;
      const parts = blob.partsList.map((p) => ({ path: join(objectsRoot, blob.location, p.name), rows: p.rows }));
      const statement = buildReadStatement(rows.toMeta(row).columns, parts, request);
      const result = await options.runRead(statement.sql, statement.params);
      const more = result.length > request.limit;
      return {
        columns: statement.columns.map((c) => ({ name: c.name, type: c.type })),
        rows: more ? result.slice(0, request.limit) : result,
        more,
      };
    },
    list: (principal, sessionId, after, limit): ArtifactPage => {
      const page = rows.list(principal, sessionId, after, limit + 1, now().toISOString());
      const more = page.length > limit;
      const items = (more ? page.slice(0, limit) : page).map((r) => rows.toMeta(r));
      return { artifacts: items, nextCursor: more ? items[items.length - 1]!.id : null };
    },
    delete: (principal, id) => {
      const row = rows.find(principal, id);
      if (row === undefined || row.state === 'DELETED') return;
      db.transaction(() => rows.markDeleted(row))();
    },
    async sweepStaging() {
      let removed = 0;
      for (const entry of leftovers.splice(0)) {
        rmSync(join(stagingRoot, entry), { recursive: true, force: true });
        removed++;
        await new Promise((r) => setImmediate(r));
      }
      return removed;
    },
    close: () => db.close(),
  };
}

function quotaDenied(message: string): CommitOutcome {
  return { decision: 'DENIED', reason: 'QUOTA_EXCEEDED', message };
}

