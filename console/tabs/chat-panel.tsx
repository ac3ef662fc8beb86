/**
 * Chat, streamed: the reply appears as the model writes it, then its SQL
 * blocks, each labelled with its kind and one click away from the Query tab.
 * The client keeps the history and sends it with every message, as the
 * stateless chat route expects. Nothing here runs SQL.
 */
import { useState } from 'preact/hooks';
import { ApiError, type Schemas, type SluiceClient } from '../api.ts';
import { Badge } from '../components/badges.tsx';
import { ErrorBanner } from '../components/error-banner.tsx';
import { Field } from '../components/field.tsx';
import { readEvents } from '../sse.ts';
import type { ChatRole } from '../../src/vocabulary.ts';

type ChatBody = Schemas['ChatResponse'];
// The console never writes the system message: the server adds its own.
type Message = { role: Exclude<ChatRole, 'system'>; content: string; blocks?: ChatBody['blocks'] };

interface Props {
  client: SluiceClient;
  datasource: string;
  onUseSql: (sql: string) => void;
}

function failure(body: unknown, status: number): ApiError {
  const envelope = body as { summary?: string; errorCode?: string } | undefined;
  return new ApiError(envelope?.errorCode ?? `HTTP_${status}`, envelope?.summary ?? `The chat failed with HTTP ${status}.`, null);
}

export function ChatPanel({ client, datasource, onUseSql }: Props) {
  const [messages, setMessages] = useState<Message[]>([]);
  const [draft, setDraft] = useState('');
  const [streaming, setStreaming] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);

  async function send(): Promise<void> {
    if (streaming !== null || draft.trim() === '') return;
    const history: Message[] = [...messages, { role: 'user', content: draft }];
    setMessages(history);
    setDraft('');
    setError(null);
    setStreaming('');
    try {
      const body = { datasource, messages: history.map(({ role, content }) => ({ role, content })) };
      const { data, error: bad, response } = await client.chatStream({ body, parseAs: 'stream' });
      if (!response.ok || !(data instanceof ReadableStream)) throw failure(bad, response.status);
      let text = '';
      for await (const event of readEvents(data)) {
        if (event.event === 'delta') {
          text += (JSON.parse(event.data) as { text: string }).text;
          setStreaming(text);
        } else if (event.event === 'done') {
          const done = JSON.parse(event.data) as ChatBody;
          setMessages([...history, { role: 'assistant', content: done.message, blocks: done.blocks }]);
        } else if (event.event === 'error') {
          throw failure(JSON.parse(event.data), 502);
        }
      }
    } catch (e) {
      setError(e);
    } finally {
      setStreaming(null);
    }
  }

  return (
    <section class="panel" aria-label="Chat">
      <h2>Chat</h2>
      <p class="muted">Ask for SQL; nothing runs until you run it on the Query tab.</p>
      <ol class="chat-log" aria-live="polite">
        {messages.map((m, i) => (
          <li key={i} class={`chat-${m.role}`}>
            <p class="chat-text">{m.content}</p>
            {m.blocks?.map((block, j) => (
              <figure key={j} class="sql-block">
                <figcaption>
                  <Badge tone={block.kind === 'select' ? 'good' : 'bad'} label="SQL">{block.kind}</Badge>
                  {block.kind === 'select' ? (
                    <button type="button" onClick={() => onUseSql(block.sql)}>
                      Open in Query
                    </button>
                  ) : null}
                </figcaption>
                <pre>{block.sql}</pre>
              </figure>
            ))}
          </li>
        ))}
        {streaming !== null ? (
          <li class="chat-assistant">
            <p class="chat-text">{streaming || '…'}</p>
          </li>
        ) : null}
      </ol>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void send();
        }}
      >
        <Field label="Message">{(id) => <textarea id={id} rows={2} value={draft} onInput={(e) => setDraft(e.currentTarget.value)} />}</Field>
        <button type="submit" disabled={streaming !== null}>
          Send
        </button>
      </form>
      <ErrorBanner error={error} />
    </section>
  );
}
