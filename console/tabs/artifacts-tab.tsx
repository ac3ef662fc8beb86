/**
 * The Artifacts tab: the caller's sessions, the artifacts (of one session
 * or of all), usage against the quota as a meter (with the chosen session's
 * share), Open (the same table view as a query's result), Delete, copying
 * ticked artifacts to another session, and for admins a maintenance round.
 * Other tabs open an artifact here by its id.
 */
import { useCallback, useEffect, useState } from 'preact/hooks';
import { unwrap, type Artifact, type SluiceClient } from '../api.ts';
import { ArtifactView } from '../components/artifact-view.tsx';
import { ErrorBanner } from '../components/error-banner.tsx';
import { UsageMeter, type Usage } from '../components/usage-meter.tsx';
import { ArtifactsTable } from './artifacts-table.tsx';
import { CopyArtifacts } from './copy-artifacts.tsx';
import { MaintenanceAction } from './maintenance-action.tsx';
import { SessionsPanel, type SessionSummary } from './sessions-panel.tsx';

interface Props {
  client: SluiceClient;
  /** The list is read again each time the tab is shown: queries elsewhere add to it. */
  active: boolean;
  opened: string | null;
  onOpen: (id: string | null) => void;
  admin: boolean;
}

export function ArtifactsTab({ client, active, opened, onOpen, admin }: Props) {
  const [artifacts, setArtifacts] = useState<Artifact[] | null>(null);
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [usage, setUsage] = useState<Usage | null>(null);
  const [sessions, setSessions] = useState<SessionSummary[]>([]);
  // Null: the artifacts of every session.
  const [session, setSession] = useState<string | null>(null);
  const [ticked, setTicked] = useState<ReadonlySet<string>>(new Set());
  const [summary, setSummary] = useState('');
  const [error, setError] = useState<unknown>(null);

  const load = useCallback(async (cursor: string | null) => {
    try {
      const inSession = session !== null ? { sessionId: session } : {};
      const [list, use, listed] = await Promise.all([
        unwrap(client.listArtifacts({ params: { query: { limit: 50, ...inSession, ...(cursor !== null ? { cursor } : {}) } } })),
        unwrap(client.getUsage({ params: { query: inSession } })),
        unwrap(client.listSessions({})),
      ]);
      setArtifacts((seen) => (cursor === null ? list.data.artifacts : [...(seen ?? []), ...list.data.artifacts]));
      if (cursor === null) setTicked(new Set());
      setNextCursor(list.data.nextCursor);
      setSummary(list.summary);
      setUsage(use.data);
      setSessions(listed.data.sessions);
      setError(null);
    } catch (e) {
      setError(e);
    }
  }, [client, session]);

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

  const tick = (id: string, on: boolean) =>
    setTicked((seen) => {
      const next = new Set(seen);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });

  return (
    <div class="tab-body">
      {usage !== null ? <UsageMeter usage={usage} /> : null}
      <ErrorBanner error={error} />
      <SessionsPanel sessions={sessions} chosen={session} onChoose={setSession} />
      <div class="toolbar">
        <p class="summary">{summary}</p>
        <button type="button" onClick={() => void load(null)}>Refresh</button>
      </div>
      {artifacts !== null ? (
        <>
          <CopyArtifacts
            client={client}
            selected={artifacts.filter((a) => ticked.has(a.id))}
            onCopied={(target) => {
              // The copies are shown where they went; choosing the same session again still reloads.
              if (target === session) void load(null);
              else setSession(target);
            }}
            onError={setError}
          />
          <ArtifactsTable artifacts={artifacts} opened={opened} ticked={ticked} onTick={tick} onOpen={onOpen} onDelete={(id) => void remove(id)} />
        </>
      ) : null}
      {nextCursor !== null ? <button type="button" onClick={() => void load(nextCursor)}>More artifacts</button> : null}
      {admin ? <MaintenanceAction client={client} /> : null}
      {opened !== null ? <ArtifactView key={opened} client={client} artifactId={opened} /> : null}
    </div>
  );
}
