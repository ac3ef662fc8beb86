/**
 * The Query tab: SQL, a datasource, Run (or Ctrl+Enter). While the query
 * runs it shows the rows so far, the time elapsed and Cancel; then the API's
 * summary sentence, the completeness badges, and the rows: the artifact's
 * pages when there is an artifact, else the preview. Another tab can ask
 * it to run a statement (History's Re-run): it loads that SQL and datasource
 * and runs them unless a query is running already.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { SluiceClient } from '../api.ts';
import { CompletenessBadges } from '../components/badges.tsx';
import { DataTable } from '../components/data-table.tsx';
import { ArtifactView } from '../components/artifact-view.tsx';
import { ErrorBanner } from '../components/error-banner.tsx';
import { Field } from '../components/field.tsx';
import { formatCount, formatMs } from '../format.ts';
import { QueryRun, type QueryOutcome } from '../query-run.ts';

/** A statement to run now; a new `nonce` asks again for the same statement. */
export interface RunRequest {
  sql: string;
  datasource: string;
  nonce: number;
}

interface Props {
  client: SluiceClient;
  datasources: { id: string; description: string; kind: string; dialect: string }[];
  sql: string;
  onSqlChange: (sql: string) => void;
  runRequest?: RunRequest | null;
}

/**
 * A datasource as the list shows it: its id, then its dialect, with its kind first where the dialect alone does not
 * say it (`files (duckdb)`, `mysql (mariadb)`; `postgresql` and `sqlite` do), then its description.
 */
function datasourceLabel(d: { id: string; description: string; kind: string; dialect: string }): string {
  const engine = d.dialect.startsWith(d.kind) || d.kind.startsWith(d.dialect) ? d.dialect : `${d.kind} (${d.dialect})`;
  return [d.id, engine, d.description].filter((part) => part !== '').join(' \u00b7 ');
}

export function QueryTab({ client, datasources, sql, onSqlChange, runRequest = null }: Props) {
  const [datasource, setDatasource] = useState(datasources[0]?.id ?? 'default');
  const [run, setRun] = useState<QueryRun | null>(null);
  const [progress, setProgress] = useState<QueryOutcome | null>(null);
  const [outcome, setOutcome] = useState<QueryOutcome | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [startedAt, setStartedAt] = useState(0);
  const [now, setNow] = useState(0);
  const [cancelling, setCancelling] = useState(false);
  const running = run !== null;
  const runRef = useRef<QueryRun | null>(null);

  useEffect(() => {
    if (!running) return undefined;
    const timer = setInterval(() => setNow(performance.now()), 200);
    return () => clearInterval(timer);
  }, [running]);

  // A tab closed or a sign-out while running leaves nothing polling.
  useEffect(() => () => void runRef.current?.cancel(), []);

  useEffect(() => {
    if (runRequest === null) return;
    setDatasource(runRequest.datasource);
    onSqlChange(runRequest.sql);
    start(runRequest.sql, runRequest.datasource);
    // Only a new request runs: not a re-render, nor an edit of the SQL.
  }, [runRequest?.nonce]);

  function start(text: string = sql, on: string = datasource): void {
    if (runRef.current !== null || text.trim() === '') return;
    setOutcome(null);
    setError(null);
    setProgress(null);
    setCancelling(false);
    setStartedAt(performance.now());
    setNow(performance.now());
    const next = new QueryRun(client, {
      onProgress: setProgress,
      onEnd: (end) => {
        setOutcome(end);
        setRun(null);
        runRef.current = null;
      },
      onError: (e) => {
        setError(e);
        setRun(null);
        runRef.current = null;
      },
    });
    setRun(next);
    runRef.current = next;
    void next.start({ sql: text, datasource: on });
  }

  const data = outcome?.data;
  const artifactId = data?.artifact?.decision === 'CREATED' ? data.artifact.id : undefined;
  return (
    <div class="tab-body">
      <form
        class="query-form"
        onSubmit={(e) => {
          e.preventDefault();
          start();
        }}
      >
        <Field label="SQL" class="grow">
          {(id) => (
            <textarea
              id={id}
              class="sql"
              spellcheck={false}
              rows={4}
              value={sql}
              onInput={(e) => onSqlChange(e.currentTarget.value)}
              onKeyDown={(e) => {
                if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
                  e.preventDefault();
                  start();
                }
              }}
            />
          )}
        </Field>
        <div class="form-row">
          <Field label="Datasource">
            {(id) => (
              <select id={id} value={datasource} onChange={(e) => setDatasource(e.currentTarget.value)}>
                {datasources.map((d) => (
                  <option key={d.id} value={d.id}>
                    {datasourceLabel(d)}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <button type="submit" class="primary" disabled={running}>
            Run
          </button>
          {running ? (
            <button
              type="button"
              class="danger"
              disabled={cancelling}
              onClick={() => {
                setCancelling(true);
                void run.cancel();
              }}
            >
              Cancel
            </button>
          ) : null}
          <span class="muted hint">Ctrl+Enter runs</span>
        </div>
      </form>
      {running ? (
        <p class="running" role="status">
          <span class="spinner" aria-hidden="true" /> {cancelling ? 'Cancelling' : 'Running'}: {formatCount(progress?.data.progress.rowsWritten ?? 0)} rows so far, {formatMs(now - startedAt)} elapsed
        </p>
      ) : null}
      <ErrorBanner error={error} />
      {outcome !== null && data !== undefined ? (
        <section class="result" aria-label="Result">
          <p class="summary">{outcome.summary}</p>
          <CompletenessBadges completeness={data.completeness} artifact={data.artifact} />
          {artifactId !== undefined ? (
            <ArtifactView key={artifactId} client={client} artifactId={artifactId} columns={data.preview.columns} />
          ) : data.preview.columns.length > 0 ? (
            <DataTable columns={data.preview.columns} rows={data.preview.rows} caption="Preview" />
          ) : null}
        </section>
      ) : null}
    </div>
  );
}
