/**
 * The Artifacts tab: the caller's artifacts (rows, size, session, expiry),
 * usage against the quota as a meter, Open (the same table view as a query's
 * result) and Delete. Other tabs open an artifact here by its id.
 */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { unwrap, type Artifact, type Schemas, type SluiceClient } from '../api.ts';
import { ArtifactView } from '../components/artifact-view.tsx';
import { ErrorBanner } from '../components/error-banner.tsx';
import { formatBytes, formatCount } from '../format.ts';

type Usage = Schemas['UsageEnvelope']['data'];

interface Props {
  client: SluiceClient;
  /** The list is read again each time the tab is shown: queries elsewhere add to it. */
  active: boolean;
  opened: string | null;
  onOpen: (id: string | null) => void;
}

/** Tiny shares stay visible: "<0.01%" rather than a zero that hides them. */
function percentText(used: number, quota: number): string {
  const percent = quota > 0 ? (100 * used) / quota : 0;
  if (used > 0 && percent < 0.01) return '<0.01%';
  return `${percent.toFixed(percent < 10 ? 2 : 0)}%`;
}

function UsageMeter({ usage }: { usage: Usage }) {
  const { logicalBytes, quotaBytes, artifacts } = usage.principal;
  return (
    <div class="usage">
      <label class="usage-label">
        <span>
          Quota used: {formatBytes(logicalBytes)} of {formatBytes(quotaBytes)} ({percentText(logicalBytes, quotaBytes)}), {formatCount(artifacts)} artifacts
        </span>
        <meter min={0} max={quotaBytes} low={quotaBytes * 0.7} high={quotaBytes * 0.9} optimum={0} value={logicalBytes} />
      </label>
      {usage.workspace !== undefined ? (
        <span class="muted">
          Workspace: {formatBytes(usage.workspace.physicalBytes)} of {formatBytes(usage.workspace.quotaBytes)} stored, {formatCount(usage.workspace.artifacts)} artifacts
        </span>
      ) : null}
    </div>
  );
}

export function ArtifactsTab({ client, active, opened, onOpen }: Props) {
  const [artifacts, setArtifacts] = useState<Artifact[] | null>(null);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [usage, setUsage] = useState<Usage | null>(null);
  const [summary, setSummary] = useState('');
  const [error, setError] = useState<unknown>(null);

  const load = useCallback(async (cursor: string | null) => {
    try {
      const [list, use] = await Promise.all([
        unwrap(client.listArtifacts({ params: { query: { limit: 50, ...(cursor !== null ? { cursor } : {}) } } })),
        unwrap(client.getUsage({})),
      ]);
      setArtifacts((seen) => (cursor === null ? list.data.artifacts : [...(seen ?? []), ...list.data.artifacts]));
      setNextCursor(list.data.nextCursor);
      setSummary(list.summary);
      setUsage(use.data);
      setError(null);
    } catch (e) {
      setError(e);
    }
  }, [client]);

  useEffect(() => {
    if (active) void load(null);
  }, [load, active]);

  async function remove(id: string): Promise<void> {
    try {
      await unwrap(client.deleteArtifact({ params: { path: { id } } }));
      if (opened === id) onOpen(null);
      await load(null);
    } catch (e) {
      setError(e);
    }
  }

  return (
    <div class="tab-body">
      {usage !== null ? <UsageMeter usage={usage} /> : null}
      <ErrorBanner error={error} />
      <div class="toolbar">
        <p class="summary">{summary}</p>
        <button type="button" onClick={() => void load(null)}>Refresh</button>
      </div>
      {artifacts !== null ? (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Artifacts</caption>
            <thead>
              <tr>
                <th scope="col">Artifact</th>
                <th scope="col" class="num">Rows</th>
                <th scope="col" class="num">Size</th>
                <th scope="col" class="wide-only">Session</th>
                <th scope="col" class="wide-only">Expires</th>
                <th scope="col"><span class="visually-hidden">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              {artifacts.map((a) => (
                <tr key={a.id} class={a.id === opened ? 'selected' : undefined}>
                  <td>
                    <code>{a.id}</code>
                    <div class="sql-snippet" title={a.sql}>{a.sql}</div>
                  </td>
                  <td class="num">{formatCount(a.rowCount)}{a.coverage === 'PREFIX' ? ' (prefix)' : ''}</td>
                  <td class="num">{formatBytes(a.sizeBytes)}</td>
                  <td class="wide-only">{a.sessionId}</td>
                  <td class="nowrap wide-only">{a.expiresAt}</td>
                  <td class="actions">
                    <button type="button" aria-label={`Open ${a.id}`} onClick={() => onOpen(a.id)}>Open</button>
                    <button type="button" class="danger" aria-label={`Delete ${a.id}`} onClick={() => void remove(a.id)}>Delete</button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {artifacts.length === 0 ? <p class="muted empty">No artifacts yet: a query whose preview is not the whole result makes one.</p> : null}
        </div>
      ) : null}
      {nextCursor !== null ? <button type="button" onClick={() => void load(nextCursor)}>More artifacts</button> : null}
      {opened !== null ? <ArtifactView key={opened} client={client} artifactId={opened} /> : null}
    </div>
  );
}
