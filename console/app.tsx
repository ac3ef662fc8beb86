/**
 * The console's shell: sign-in (the token kept in sessionStorage), then the
 * tabs the caller may use, which share the chosen datasource, the SQL being
 * edited (so chat can hand SQL to the Query tab), a statement to run (the
 * History tab's Re-run) and the artifact opened in the Artifacts tab (so the
 * agent's artifact links and History's Open result can open one).
 */
import { useEffect, useState } from 'preact/hooks';
import { AgentTab } from './tabs/agent-tab.tsx';
import { ArtifactsTab } from './tabs/artifacts-tab.tsx';
import { HistoryTab } from './tabs/history-tab.tsx';
import { QueryTab, type RunRequest } from './tabs/query-tab.tsx';
import { SemanticTab } from './tabs/semantic-tab.tsx';
import { signIn, SignInForm, type Signed } from './sign-in.tsx';
import { saveToken, savedToken } from './token-store.ts';

type TabName = 'Query' | 'History' | 'Artifacts' | 'Agent' | 'Semantic';

function tabsFor(signed: Signed): TabName[] {
  const tabs: TabName[] = [];
  if (signed.datasources.length > 0) tabs.push('Query', 'History');
  tabs.push('Artifacts');
  if (signed.analyst) tabs.push('Agent', 'Semantic');
  return tabs;
}

/** The tables there are, in each dialect's own catalog. */
const TABLES_SQL: Record<string, string> = {
  postgresql: 'SELECT schemaname, tablename FROM pg_catalog.pg_tables ORDER BY 1, 2',
  mariadb: 'SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema = DATABASE() ORDER BY 1, 2',
  mysql: 'SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema = DATABASE() ORDER BY 1, 2',
  sqlite: 'SELECT type, name FROM sqlite_schema ORDER BY 1, 2',
  duckdb: 'SELECT table_schema, table_name FROM information_schema.tables ORDER BY 1, 2',
};

/** Something to run at once: the sample shop's orders on the embedded database, else the tables there are. */
function starterSql(signed: Signed): string {
  const first = signed.datasources[0];
  if (first?.embedded) return 'SELECT * FROM orders ORDER BY id';
  return TABLES_SQL[first?.dialect ?? 'postgresql'] ?? TABLES_SQL.postgresql!;
}

export function App() {
  const [signed, setSigned] = useState<Signed | null>(null);
  const [restoring, setRestoring] = useState(savedToken() !== null);
  const [restoreError, setRestoreError] = useState<unknown>(null);
  const [tab, setTab] = useState<TabName>('Query');
  // Null until edited: then the starter SQL of the datasource signed in to.
  const [sql, setSql] = useState<string | null>(null);
  const [opened, setOpened] = useState<string | null>(null);
  const [runRequest, setRunRequest] = useState<RunRequest | null>(null);

  useEffect(() => {
    const token = savedToken();
    if (token === null) return;
    signIn(token)
      .then(accept)
      .catch((error: unknown) => {
        saveToken(null);
        setRestoreError(error);
      })
      .finally(() => setRestoring(false));
  }, []);

  function accept(next: Signed): void {
    saveToken(next.token);
    setSigned(next);
    setTab(tabsFor(next)[0] ?? 'Artifacts');
  }

  if (restoring) return <p class="muted loading">Signing in…</p>;
  if (signed === null) return <SignInForm onSignedIn={accept} initialError={restoreError} />;

  const tabs = tabsFor(signed);
  const datasource = signed.datasources[0]?.id ?? 'default';
  const openArtifact = (id: string | null) => {
    setOpened(id);
    if (id !== null) setTab('Artifacts');
  };
  return (
    <div class="shell">
      <header class="top">
        <h1>Sluice</h1>
        <nav role="tablist" aria-label="Console">
          {tabs.map((name) => (
            <button key={name} type="button" role="tab" id={`tab-${name}`} aria-controls={`panel-${name}`} aria-selected={tab === name} class="tab" onClick={() => setTab(name)}>
              {name}
            </button>
          ))}
        </nav>
        <span class="spacer" />
        <a href="/docs" class="muted">API docs</a>
        <button
          type="button"
          onClick={() => {
            // Nothing of this person's work stays for whoever signs in next (the tabs unmount with them).
            saveToken(null);
            setSigned(null);
            setSql(null);
            setOpened(null);
            setRunRequest(null);
          }}
        >
          Sign out
        </button>
      </header>
      {/* Every tab stays mounted, only hidden: a running query, a result or a transcript survives a look at another tab. */}
      {tabs.map((name) => (
        <main key={name} id={`panel-${name}`} role="tabpanel" aria-labelledby={`tab-${name}`} class="panel-main" hidden={tab !== name}>
          {name === 'Query' ? <QueryTab client={signed.client} datasources={signed.datasources} sql={sql ?? starterSql(signed)} onSqlChange={setSql} runRequest={runRequest} /> : null}
          {name === 'History' ? (
            <HistoryTab
              client={signed.client}
              active={tab === 'History'}
              datasources={signed.datasources.map((d) => d.id)}
              onRerun={(item) => {
                setRunRequest((last) => ({ sql: item.sql, datasource: item.datasource, nonce: (last?.nonce ?? 0) + 1 }));
                setTab('Query');
              }}
              onOpenArtifact={openArtifact}
            />
          ) : null}
          {name === 'Artifacts' ? <ArtifactsTab client={signed.client} active={tab === 'Artifacts'} opened={opened} onOpen={openArtifact} admin={signed.admin} /> : null}
          {name === 'Agent' ? <AgentTab client={signed.client} datasource={datasource} onOpenArtifact={openArtifact} onUseSql={(next) => { setSql(next); setTab('Query'); }} /> : null}
          {name === 'Semantic' ? <SemanticTab client={signed.client} /> : null}
        </main>
      ))}
    </div>
  );
}
