/**
 * Saved visualizations in the catalog, so one saved through any replica is
 * read and rendered through every other. The intent and the chart are kept
 * as the JSON the caller gave; the catalog never looks inside them.
 */
import { SluiceError } from '../errors.ts';
import type { CatalogDb, Param } from './catalog-db.ts';
import type { ListPosition, StoredVisualization, VisualizationPage } from './catalog.ts';
import { iso } from './catalog-rows.ts';

interface VisualizationRow {
  id: string;
  principal: string;
  title: string | null;
  intent: string;
  chart: string;
  created_at: string | Date;
}

export async function saveVisualization(db: CatalogDb, saved: StoredVisualization): Promise<void> {
  await db.transaction((tx) =>
    tx.run('INSERT INTO visualizations (id, principal, title, intent, chart, created_at) VALUES (?, ?, ?, ?, ?, ?)', [
      saved.id,
      saved.principal,
      saved.title,
      JSON.stringify(saved.intent),
      JSON.stringify(saved.chart),
      new Date(saved.createdAt),
    ]),
  );
}

/** Undefined for an id this principal never saved: another principal's visualization does not exist for it. */
export async function findVisualization(db: CatalogDb, principal: string, id: string): Promise<StoredVisualization | undefined> {
  const row = (await db.read<VisualizationRow>('SELECT id, principal, title, intent, chart, created_at FROM visualizations WHERE id = ? AND principal = ?', [id, principal]))[0];
  if (row === undefined) return undefined;
  return { id: row.id, principal: row.principal, title: row.title, intent: JSON.parse(row.intent) as unknown, chart: JSON.parse(row.chart) as unknown, createdAt: iso(row.created_at) };
}

export async function listVisualizations(db: CatalogDb, principal: string, request: { limit: number; after?: ListPosition | undefined }): Promise<VisualizationPage> {
  const clauses = ['principal = ?'];
  const params: Param[] = [principal];
  if (request.after !== undefined) {
    const createdAt = new Date(request.after.createdAt);
    if (Number.isNaN(createdAt.getTime())) throw new SluiceError('VALIDATION_ERROR', 'This listing cursor is not valid; list again without a cursor.');
    clauses.push('(created_at, id) < (?, ?)');
    params.push(createdAt, request.after.id);
  }
  const rows = await db.read<Pick<VisualizationRow, 'id' | 'title' | 'created_at'>>(
    `SELECT id, title, created_at FROM visualizations WHERE ${clauses.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ?`,
    [...params, request.limit + 1],
  );
  const visualizations = rows.slice(0, request.limit).map((r) => ({ id: r.id, title: r.title, createdAt: iso(r.created_at) }));
  const last = visualizations[visualizations.length - 1];
  return { visualizations, next: rows.length > request.limit && last !== undefined ? { createdAt: last.createdAt, id: last.id } : null };
}

export async function deleteVisualization(db: CatalogDb, principal: string, id: string): Promise<boolean> {
  return (await db.transaction((tx) => tx.run('DELETE FROM visualizations WHERE id = ? AND principal = ?', [id, principal]))) === 1;
}
