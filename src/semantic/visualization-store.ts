/**
 * Saved visualizations: the intent (never compiled SQL, so a chart follows
 * model changes) and the chart config, per principal, in a small SQLite file
 * in the data dir, so they outlive restarts.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { SluiceError } from '../errors.ts';
import { openSqlite, type SqliteDatabase } from '../runtime/sqlite.ts';
import type { ChartConfig } from './chart-spec.ts';

export interface SavedVisualization {
  id: string;
  principal: string;
  title: string | null;
  intent: unknown;
  chart: ChartConfig;
  createdAt: string;
}

interface Row {
  id: string;
  principal: string;
  title: string | null;
  intent: string;
  chart: string;
  created_at: string;
}

export class VisualizationStore {
  readonly #db: SqliteDatabase;

  constructor(dataDir: string) {
    this.#db = openSqlite(join(dataDir, 'visualizations.sqlite'));
    this.#db.exec(`CREATE TABLE IF NOT EXISTS visualizations (
      id TEXT PRIMARY KEY, principal TEXT NOT NULL, title TEXT, intent TEXT NOT NULL, chart TEXT NOT NULL, created_at TEXT NOT NULL)`);
  }

  save(principal: string, title: string | undefined, intent: unknown, chart: ChartConfig): SavedVisualization {
    const saved = { id: `viz_${randomUUID().replaceAll('-', '')}`, principal, title: title ?? null, intent, chart, createdAt: new Date().toISOString() };
    this.#db.prepare('INSERT INTO visualizations (id, principal, title, intent, chart, created_at) VALUES (?, ?, ?, ?, ?, ?)').run(saved.id, principal, saved.title, JSON.stringify(intent), JSON.stringify(chart), saved.createdAt);
    return saved;
  }

  get(principal: string, id: string): SavedVisualization {
    const row = this.#db.prepare('SELECT * FROM visualizations WHERE id = ? AND principal = ?').get<Row>(id, principal);
    if (row === undefined) throw new SluiceError('NOT_FOUND', `No visualization "${id}" exists for this caller.`);
    return { id: row.id, principal: row.principal, title: row.title, intent: JSON.parse(row.intent), chart: JSON.parse(row.chart) as ChartConfig, createdAt: row.created_at };
  }

  close(): void {
    this.#db.close();
  }
}
