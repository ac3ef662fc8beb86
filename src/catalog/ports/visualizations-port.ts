/** The catalog's saved visualizations, each its principal's own. */

export interface StoredVisualization {
  id: string;
  principal: string;
  title: string | null;
  intent: unknown;
  chart: unknown;
  createdAt: string;
}

export interface VisualizationsPort {
  saveVisualization(saved: StoredVisualization): Promise<void>;
  /** Undefined for an id this principal never saved. */
  findVisualization(principal: string, id: string): Promise<StoredVisualization | undefined>;
}
