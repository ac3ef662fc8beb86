/**
 * The catalog's statements, one method each, and the mapping between catalog
 * rows and ArtifactMeta. Callers wrap mutations in transactions; each method
 * here keeps its counters in step with the rows it changes.
 */
import { SluiceError } from '../../errors.ts';
import type { PlannedColumn } from '../../columns/column-plan.ts';
import type { ParquetPart } from '../types.ts';
import type { SqliteDatabase } from '../../runtime/sqlite.ts';
import type { ArtifactMeta, ArtifactState, Coverage } from '../types.ts';
import type { Cap } from '../../query/export-types.ts';

export interface ArtifactRow {
  id: string;
  principal: string;
  session_id: string;
  hash: string;
  state: ArtifactState;
  datasource: string;
  sql: string;
  columns: string;
  row_count: number;
  size_bytes: number;
  coverage: Coverage;
  bounded_by: Cap | null;
  created_at: string;
  expires_at: string;
}

interface BlobRow {
  hash: string;
  location: string;
  parts: string;
  size_bytes: number;
  refs: number;
}

export class ArtifactRows {
  readonly #db: SqliteDatabase;

  constructor(db: SqliteDatabase) {
    this.#db = db;
  }

  find(principal: string, id: string): ArtifactRow | undefined {
    return this.#db.prepare('SELECT * FROM artifacts WHERE id = ? AND principal = ?').get<ArtifactRow>(id, principal);
  }

  blob(hash: string): (BlobRow & { partsList: ParquetPart[] }) | undefined {
    const row = this.#db.prepare('SELECT * FROM blobs WHERE hash = ?').get<BlobRow>(hash);
    return row === undefined ? undefined : { ...row, partsList: JSON.parse(row.parts) as ParquetPart[] };
  }

  principalUsage(principal: string): { artifacts: number; logical_bytes: number } {
    return (
      this.#db.prepare('SELECT artifacts, logical_bytes FROM principal_usage WHERE principal = ?').get<{ artifacts: number; logical_bytes: number }>(principal) ?? {
        artifacts: 0,
        logical_bytes: 0,
      }
    );
  }

  workspaceUsage(): { artifacts: number; blobs: number; physical_bytes: number } {
    return this.#db.prepare('SELECT artifacts, blobs, physical_bytes FROM workspace_usage WHERE id = 1').get<{ artifacts: number; blobs: number; physical_bytes: number }>()!;
  }

  insertBlob(hash: string, location: string, parts: ParquetPart[], size: number): void {
    this.#db.prepare('INSERT INTO blobs (hash, location, parts, size_bytes, refs) VALUES (?, ?, ?, ?, 1)').run(hash, location, JSON.stringify(parts), size);
    this.#db.prepare('UPDATE workspace_usage SET blobs = blobs + 1, physical_bytes = physical_bytes + ? WHERE id = 1').run(size);
  }

  addBlobRef(hash: string): void {
    this.#db.prepare('UPDATE blobs SET refs = refs + 1 WHERE hash = ?').run(hash);
  }

  insertArtifact(meta: ArtifactMeta, hash: string): void {
    this.#db
      .prepare(
        `INSERT INTO artifacts (id, principal, session_id, hash, state, datasource, sql, columns, row_count, size_bytes, coverage, bounded_by, created_at, expires_at)
         VALUES (?, ?, ?, ?, 'COMMITTED', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(meta.id, meta.principal, meta.sessionId, hash, meta.datasource, meta.sql, JSON.stringify(meta.columns), meta.rowCount, meta.sizeBytes, meta.coverage, meta.boundedBy, meta.createdAt, meta.expiresAt);
    this.#db
      .prepare(
        `INSERT INTO principal_usage (principal, artifacts, logical_bytes) VALUES (?, 1, ?)
         ON CONFLICT (principal) DO UPDATE SET artifacts = artifacts + 1, logical_bytes = logical_bytes + excluded.logical_bytes`,
      )
      .run(meta.principal, meta.sizeBytes);
    this.#db.prepare('UPDATE workspace_usage SET artifacts = artifacts + 1 WHERE id = 1').run();
  }

  /** Releases the reference; the bytes stay until the collector finds their count at zero. */
  release(row: ArtifactRow, state: 'DELETED' | 'EXPIRED'): void {
    const changed = this.#db.prepare(`UPDATE artifacts SET state = ? WHERE id = ? AND state = 'COMMITTED'`).run(state, row.id);
    if (changed.changes === 0) return;
    this.#db.prepare('UPDATE blobs SET refs = refs - 1 WHERE hash = ?').run(row.hash);
    this.#db.prepare('UPDATE principal_usage SET artifacts = artifacts - 1, logical_bytes = logical_bytes - ? WHERE principal = ?').run(row.size_bytes, row.principal);
    this.#db.prepare('UPDATE workspace_usage SET artifacts = artifacts - 1 WHERE id = 1').run();
  }

  inSession(principal: string, sessionId: string): ArtifactRow[] {
    return this.#db
      .prepare(`SELECT * FROM artifacts WHERE principal = ? AND session_id = ? AND state = 'COMMITTED' ORDER BY created_at, id`)
      .all<ArtifactRow>(principal, sessionId);
  }

  expiredBefore(nowIso: string, limit: number): ArtifactRow[] {
    return this.#db.prepare(`SELECT * FROM artifacts WHERE state = 'COMMITTED' AND expires_at <= ? ORDER BY expires_at LIMIT ?`).all<ArtifactRow>(nowIso, limit);
  }

  unreferencedBlobs(limit: number): { hash: string; location: string; size_bytes: number }[] {
    return this.#db.prepare('SELECT hash, location, size_bytes FROM blobs WHERE refs <= 0 LIMIT ?').all(limit);
  }

  /** Forgets a blob whose bytes have been moved out of the store; false if it was referenced again meanwhile. */
  dropBlob(hash: string, size: number): boolean {
    const gone = this.#db.prepare('DELETE FROM blobs WHERE hash = ? AND refs <= 0').run(hash);
    if (gone.changes === 0) return false;
    this.#db.prepare('UPDATE workspace_usage SET blobs = blobs - 1, physical_bytes = physical_bytes - ? WHERE id = 1').run(size);
    return true;
  }

  list(principal: string, sessionId: string | undefined, after: string | undefined, limit: number, nowIso: string): ArtifactRow[] {
    const anchor = after === undefined ? undefined : this.find(principal, after);
    if (after !== undefined && anchor === undefined) {
      throw new SluiceError('INVALID_CURSOR', 'This listing cursor is not valid; list again without a cursor.');
    }
    const clauses = ["principal = ?", "state = 'COMMITTED'", 'expires_at > ?'];
    const params: unknown[] = [principal, nowIso];
    if (sessionId !== undefined) {
      clauses.push('session_id = ?');
      params.push(sessionId);
    }
    if (anchor !== undefined) {
      clauses.push('(created_at, id) < (?, ?)');
      params.push(anchor.created_at, anchor.id);
    }
    return this.#db
      .prepare(`SELECT * FROM artifacts WHERE ${clauses.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ?`)
      .all<ArtifactRow>(...params, limit);
  }

  toMeta(row: ArtifactRow): ArtifactMeta {
    return {
      id: row.id,
      state: row.state,
      principal: row.principal,
      sessionId: row.session_id,
      sql: row.sql,
      datasource: row.datasource,
      columns: JSON.parse(row.columns) as PlannedColumn[],
      rowCount: row.row_count,
      sizeBytes: row.size_bytes,
      coverage: row.coverage,
      boundedBy: row.bounded_by,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
    };
  }
}
