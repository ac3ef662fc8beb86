/**
 * The caller's saved visualizations (GET /api/semantic/visualizations),
 * newest first, a page at a time ("More" follows nextCursor), each with
 * Delete. Read again whenever `savedId` changes, so a chart just saved in the
 * Semantic tab shows up here.
 */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { unwrap, type Schemas, type SluiceClient } from '../api.ts';
import { ErrorBanner } from '../components/error-banner.tsx';

type Visualization = Schemas['VisualizationSummary'];

export function VisualizationsList({ client, savedId }: { client: SluiceClient; savedId: string | null }) {
  const [items, setItems] = useState<Visualization[] | null>(null);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);

  const load = useCallback(async (cursor: string | null) => {
    try {
      const page = await unwrap(client.listVisualizations({ params: { query: { limit: 20, ...(cursor !== null ? { cursor } : {}) } } }));
      setItems((seen) => (cursor === null ? page.data.visualizations : [...(seen ?? []), ...page.data.visualizations]));
      setNextCursor(page.data.nextCursor);
      setError(null);
    } catch (e) {
      setError(e);
    }
  }, [client]);

  useEffect(() => {
    void load(null);
  }, [load, savedId]);

  async function remove(id: string): Promise<void> {
    try {
      await unwrap(client.deleteVisualization({ params: { path: { id } } }));
      setItems((seen) => (seen ?? []).filter((v) => v.id !== id));
    } catch (e) {
      setError(e);
    }
  }

  return (
    <section class="panel visualizations" aria-label="Saved visualizations">
      <strong>Saved visualizations</strong>
      <ErrorBanner error={error} />
      {items !== null && items.length === 0 ? <p class="muted empty">None saved yet.</p> : null}
      {items !== null && items.length > 0 ? (
        <table>
          <caption class="visually-hidden">Saved visualizations</caption>
          <thead>
            <tr>
              <th scope="col">Title</th>
              <th scope="col">Created</th>
              <th scope="col"><span class="visually-hidden">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            {items.map((v) => (
              <tr key={v.id}>
                <td>{v.title ?? <span class="muted">(untitled)</span>} <code class="muted">{v.id}</code></td>
                <td class="nowrap">{v.createdAt}</td>
                <td class="actions">
                  <button type="button" class="danger" aria-label={`Delete visualization ${v.id}`} onClick={() => void remove(v.id)}>Delete</button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {nextCursor !== null ? <button type="button" onClick={() => void load(nextCursor)}>More</button> : null}
    </section>
  );
}
