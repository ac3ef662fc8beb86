/**
 * The Agent tab: a prompt for the read-only agent, its answer, the
 * artifacts it made (each opens in the Artifacts tab) and its transcript;
 * below, the streamed chat.
 */
import { useState } from 'preact/hooks';
import { unwrap, type Schemas, type SluiceClient } from '../api.ts';
import { Badge } from '../components/badges.tsx';
import { ErrorBanner } from '../components/error-banner.tsx';
import { Field } from '../components/field.tsx';
import { ChatPanel } from './chat-panel.tsx';
import { Transcript } from './agent-transcript.tsx';

type AgentAnswer = Schemas['AgentResponse'];

interface Props {
  client: SluiceClient;
  datasource: string;
  onOpenArtifact: (id: string) => void;
  onUseSql: (sql: string) => void;
}

export function AgentTab({ client, datasource, onOpenArtifact, onUseSql }: Props) {
  const [prompt, setPrompt] = useState('');
  const [answer, setAnswer] = useState<AgentAnswer | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  async function ask(): Promise<void> {
    if (busy || prompt.trim() === '') return;
    setBusy(true);
    setError(null);
    setAnswer(null);
    try {
      setAnswer(await unwrap(client.runAgent({ body: { prompt, datasource } })));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  return (
    <div class="tab-body two-col">
      <section class="panel" aria-label="Agent">
        <h2>Agent</h2>
        <p class="muted">A model with read-only tools answers from the data; every step is below.</p>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void ask();
          }}
        >
          <Field label="Prompt">{(id) => <textarea id={id} rows={3} value={prompt} onInput={(e) => setPrompt(e.currentTarget.value)} />}</Field>
          <div class="form-row">
            <button type="submit" class="primary" disabled={busy}>
              Ask
            </button>
            {busy ? <span role="status" class="running"><span class="spinner" aria-hidden="true" /> The agent is working…</span> : null}
          </div>
        </form>
        <ErrorBanner error={error} />
        {answer !== null ? (
          <div class="agent-answer">
            <h3>Answer</h3>
            <p class="answer">{answer.answer}</p>
            <div class="badges">
              <Badge tone={answer.stoppedBy === 'answer' ? 'good' : 'warn'} label="stopped by">{answer.stoppedBy}</Badge>
              <Badge tone="plain" label="iterations">{String(answer.iterations)}</Badge>
              <Badge tone="plain" label="tokens">{String(answer.usage.total_tokens)}</Badge>
            </div>
            {answer.artifacts.length > 0 ? (
              <ul class="artifact-links" aria-label="Artifacts the agent made">
                {answer.artifacts.map((id) => (
                  <li key={id}>
                    <a href={`#artifact-${id}`} onClick={(e) => { e.preventDefault(); onOpenArtifact(id); }}>
                      {id}
                    </a>
                  </li>
                ))}
              </ul>
            ) : null}
            <h3>Transcript</h3>
            <Transcript steps={answer.transcript} />
          </div>
        ) : null}
      </section>
      <ChatPanel client={client} datasource={datasource} onUseSql={onUseSql} />
    </div>
  );
}
