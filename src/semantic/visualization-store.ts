/**
 * Saved visualizations: the intent (never compiled SQL, so a chart follows
 * model changes) and the chart config, per principal. One process keeps
 * them in a small SQLite file in the data dir, as it always has, so charts
 * saved before stay readable with no copy step; replicas on one catalog
 * keep them in the catalog, so a chart saved through one replica is read
 * and rendered through every other.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { ListPosition } from '../catalog/catalog.ts';
import { decodeKeysetCursor, encodeKeysetCursor } from '../catalog/keyset-cursor.ts';
import type { StoredVisualization, VisualizationPage, VisualizationSummary, VisualizationsPort } from '../catalog/ports/visualizations-port.ts';
import { SluiceError } from '../errors.ts';
import { openSqlite } from '../runtime/sqlite.ts';
import type { ChartConfig } from './chart-spec.ts';

export interface SavedVisualization {
  id: string;
  principal: string;
  title: string | null;
  intent: unknown;
  chart: ChartConfig;
  createdAt: string;
}

export interface VisualizationStore {
  save(principal: string, title: string | undefined, intent: unknown, chart: ChartConfig): Promise<SavedVisualization>;
  /** NOT_FOUND for an id this principal never saved, another principal's included. */
  get(principal: string, id: string): Promise<SavedVisualization>;
  /** The principal's own, newest first; a cursor this server did not hand out is INVALID_CURSOR. */
  list(principal: string, limit: number, cursor: string | undefined): Promise<{ visualizations: VisualizationSummary[]; nextCursor: string | null }>;
  /** NOT_FOUND for an id this principal never saved (or already deleted), another principal's included. */
  delete(principal: string, id: string): Promise<void>;
  close(): Promise<void>;
}

/** Where the saved rows live: the two stores differ only in this. */
interface VisualizationRows {
  insert(saved: StoredVisualization): Promise<void>;
  find(principal: string, id: string): Promise<StoredVisualization | undefined>;
  list(principal: string, request: { limit: number; after?: ListPosition | undefined }): Promise<VisualizationPage>;
  remove(principal: string, id: string): Promise<boolean>;
  close(): Promise<void>;
}

const notFound = (id: string) => new SluiceError('NOT_FOUND', `No visualization "${id}" exists for this caller.`);

function storeOver(rows: VisualizationRows): VisualizationStore {
  return {
    async save(principal, title, intent, chart) {
      const saved = { id: `viz_${randomUUID().replaceAll('-', '')}`, principal, title: title ?? null, intent, chart, createdAt: new Date().toISOString() };
      await rows.insert(saved);
      return saved;
    },
    async get(principal, id) {
      const found = await rows.find(principal, id);
      if (found === undefined) throw notFound(id);
      return { ...found, chart: found.chart as ChartConfig };
    },
    async list(principal, limit, cursor) {
      const after = cursor === undefined ? undefined : decodeKeysetCursor(cursor, () => new SluiceError('INVALID_CURSOR', 'This listing cursor is not one this server handed out; list again without it.'));
      const page = await rows.list(principal, { limit, after });
      return { visualizations: page.visualizations, nextCursor: page.next === null ? null : encodeKeysetCursor(page.next) };
    },
    async delete(principal, id) {
      if (!(await rows.remove(principal, id))) throw notFound(id);
    },
    close: () => rows.close(),
  };
}

interface Row {
  id: string;
  principal: string;
  title: string | null;
  intent: string;
  chart: string;
  created_at: string;
}

/** The single-process default: `visualizations.sqlite` in the data dir. */
export function localVisualizations(dataDir: string): VisualizationStore {
  const db = openSqlite(join(dataDir, 'visualizations.sqlite'));
  db.exec(`CREATE TABLE IF NOT EXISTS visualizations (
    id TEXT PRIMARY KEY, principal TEXT NOT NULL, title TEXT, intent TEXT NOT NULL, chart TEXT NOT NULL, created_at TEXT NOT NULL)`);
  db.exec('CREATE INDEX IF NOT EXISTS visualizations_by_principal ON visualizations (principal, created_at, id)');
  return storeOver({
    insert: async (v) => void db.prepare('INSERT INTO visualizations (id, principal, title, intent, chart, created_at) VALUES (?, ?, ?, ?, ?, ?)').run(v.id, v.principal, v.title, JSON.stringify(v.intent), JSON.stringify(v.chart), v.createdAt),
    find: async (principal, id) => {
      const row = db.prepare('SELECT * FROM visualizations WHERE id = ? AND principal = ?').get<Row>(id, principal);
      return row === undefined ? undefined : { id: row.id, principal: row.principal, title: row.title, intent: JSON.parse(row.intent) as unknown, chart: JSON.parse(row.chart) as unknown, createdAt: row.created_at };
    },
    list: async (principal, { limit, after }) => {
      // Times are ISO text here, which sorts as time does (as in the SQLite catalog).
      const rows =
        after === undefined
          ? db.prepare('SELECT id, title, created_at FROM visualizations WHERE principal = ? ORDER BY created_at DESC, id DESC LIMIT ?').all<Row>(principal, limit + 1)
          : db
              .prepare('SELECT id, title, created_at FROM visualizations WHERE principal = ? AND (created_at, id) < (?, ?) ORDER BY created_at DESC, id DESC LIMIT ?')
              .all<Row>(principal, new Date(after.createdAt).toISOString(), after.id, limit + 1);
      const visualizations = rows.slice(0, limit).map((r) => ({ id: r.id, title: r.title, createdAt: r.created_at }));
      const last = visualizations[visualizations.length - 1];
      return { visualizations, next: rows.length > limit && last !== undefined ? { createdAt: last.createdAt, id: last.id } : null };
    },
    remove: async (principal, id) => db.prepare('DELETE FROM visualizations WHERE id = ? AND principal = ?').run(id, principal).changes === 1,
    close: async () => db.close(),
  });
}

/** Replicas: the shared catalog, which the store closes (not this). */
export function catalogVisualizations(catalog: VisualizationsPort): VisualizationStore {
  return storeOver({
    insert: (v) => catalog.saveVisualization(v),
    find: (principal, id) => catalog.findVisualization(principal, id),
    list: (principal, request) => catalog.listVisualizations(principal, request),
    remove: (principal, id) => catalog.deleteVisualization(principal, id),
    close: async () => undefined,
  });
}
