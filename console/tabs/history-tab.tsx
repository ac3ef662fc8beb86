/**
 * The History tab: the caller's queries from GET /api/queries, newest first
 * (from every route and replica), optionally one state only. Re-run hands a
 * query's SQL and datasource to the Query tab, which runs it; Open result
 * opens its artifact in the Artifacts tab. Read again each time the tab is
 * shown, since queries elsewhere add to it.
 */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { unwrap, type Schemas, type SluiceClient } from '../api.ts';
import { Badge } from '../components/badges.tsx';
import { ErrorBanner } from '../components/error-banner.tsx';
import { Field } from '../components/field.tsx';
import { formatCount } from '../format.ts';

export type HistoryItem = Schemas['QueryHistoryItem'];
type State = HistoryItem['state'];

const STATES: State[] = ['RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'];
const STATE_TONE = { RUNNING: 'info', SUCCEEDED: 'good', FAILED: 'bad', CANCELLED: 'warn' } as const;
const PAGE = 50;

interface Props {
  client: SluiceClient;
  active: boolean;
  /** The datasources the caller may query: a query on any other cannot be re-run from here. */
  datasources: string[];
  onRerun: (item: HistoryItem) => void;
  onOpenArtifact: (id: string) => void;
}

export function HistoryTab({ client, active, datasources, onRerun, onOpenArtifact }: Props) {
  const [items, setItems] = useState<HistoryItem[] | null>(null);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [state, setState] = useState<State | ''>('');
  const [summary, setSummary] = useState('');
  const [error, setError] = useState<unknown>(null);

  const load = useCallback(
    async (cursor: string | null) => {
      try {
        const query = { limit: PAGE, ...(state !== '' ? { state } : {}), ...(cursor !== null ? { cursor } : {}) };
        const page = await unwrap(client.listQueryHistory({ params: { query } }));
        setItems((seen) => (cursor === null ? page.data.items : [...(seen ?? []), ...page.data.items]));
        setNextCursor(page.data.nextCursor);
        setSummary(page.summary);
        setError(null);
      } catch (e) {
        setError(e);
      }
    },
    [client, state],
  );

  useEffect(() => {
    if (active) void load(null);
  }, [load, active]);

  return (
    <div class="tab-body">
      <ErrorBanner error={error} />
      <div class="toolbar">
        <Field label="State" class="inline">
          {(id) => (
            <select id={id} value={state} onChange={(e) => setState(e.currentTarget.value as State | '')}>
              <option value="">All</option>
              {STATES.map((s) => (
                <option key={s} value={s}>{s}</option>
              ))}
            </select>
          )}
        </Field>
        <p class="summary">{summary}</p>
        <button type="button" onClick={() => void load(null)}>Refresh</button>
      </div>
      {items !== null ? (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Query history</caption>
            <thead>
              <tr>
                <th scope="col">Query</th>
                <th scope="col">State</th>
                <th scope="col" class="num">Rows</th>
                <th scope="col" class="wide-only">Submitted</th>
                <th scope="col"><span class="visually-hidden">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              {items.map((item) => (
                <tr key={item.queryId}>
                  <td>
                    <code>{item.queryId}</code> <span class="muted small">on {item.datasource}</span>
                    <div class="sql-snippet" title={item.sql}>{item.sql}</div>
                  </td>
                  <td>
                    <Badge tone={STATE_TONE[item.state]} label="state">{item.errorCode !== undefined ? `${item.state}: ${item.errorCode}` : item.state}</Badge>
                  </td>
                  <td class="num">{item.rows !== undefined ? formatCount(item.rows) : ''}</td>
                  <td class="nowrap wide-only">{item.submittedAt}</td>
                  <td class="actions">
                    <button type="button" aria-label={`Re-run ${item.queryId}`} disabled={!datasources.includes(item.datasource)} onClick={() => onRerun(item)}>
                      Re-run
                    </button>
                    {item.artifactId !== undefined ? (
                      <button type="button" aria-label={`Open result of ${item.queryId}`} onClick={() => onOpenArtifact(item.artifactId!)}>
                        Open result
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {items.length === 0 ? <p class="muted empty">No queries yet: what you run (here, through the API or the agent) is listed here.</p> : null}
        </div>
      ) : null}
      {nextCursor !== null ? <button type="button" onClick={() => void load(nextCursor)}>More queries</button> : null}
    </div>
  );
}
