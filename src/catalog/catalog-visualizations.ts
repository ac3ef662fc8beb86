/**
 * Saved visualizations in the catalog, so one saved through any replica is
 * read and rendered through every other. The intent and the chart are kept
 * as the JSON the caller gave; the catalog never looks inside them.
 */
import type { CatalogDb } from './catalog-db.ts';
import type { StoredVisualization } from './catalog.ts';
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
