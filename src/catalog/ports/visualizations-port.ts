/** The catalog's saved visualizations, each its principal's own. */
import type { ListPosition } from './artifacts-port.ts';

export interface StoredVisualization {
  id: string;
  principal: string;
  title: string | null;
  intent: unknown;
  chart: unknown;
  createdAt: string;
}

/** What a listing shows of a saved visualization. */
export interface VisualizationSummary {
  id: string;
  title: string | null;
  createdAt: string;
}

export interface VisualizationPage {
  visualizations: VisualizationSummary[];
  next: ListPosition | null;
}

export interface VisualizationsPort {
  saveVisualization(saved: StoredVisualization): Promise<void>;
  /** Undefined for an id this principal never saved. */
  findVisualization(principal: string, id: string): Promise<StoredVisualization | undefined>;
  /** A principal's visualizations, newest first (createdAt, then id), one page at a time. */
  listVisualizations(principal: string, request: { limit: number; after?: ListPosition | undefined }): Promise<VisualizationPage>;
  /** False when this principal has no visualization of that id (another principal's included). */
  deleteVisualization(principal: string, id: string): Promise<boolean>;
}
