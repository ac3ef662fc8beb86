/**
 * The caller's sessions (GET /api/sessions): each with its artifact count,
 * size and when it was last used; choosing one narrows the Artifacts tab to
 * it, "All sessions" widens it again.
 */
import type { Schemas } from '../api.ts';
import { formatBytes, formatCount } from '../format.ts';

export type SessionSummary = Schemas['SessionSummary'];

interface Props {
  sessions: SessionSummary[];
  /** Null: every session. */
  chosen: string | null;
  onChoose: (sessionId: string | null) => void;
}

export function SessionsPanel({ sessions, chosen, onChoose }: Props) {
  return (
    <section class="panel sessions" aria-label="Sessions">
      <div class="toolbar">
        <strong>Sessions</strong>
        <button type="button" aria-pressed={chosen === null} onClick={() => onChoose(null)}>All sessions</button>
      </div>
      {sessions.length === 0 ? <p class="muted empty">No sessions yet: artifacts start one.</p> : (
        <table>
          <caption class="visually-hidden">Sessions</caption>
          <thead>
            <tr>
              <th scope="col">Session</th>
              <th scope="col" class="num">Artifacts</th>
              <th scope="col" class="num">Size</th>
              <th scope="col" class="wide-only">Last used</th>
              <th scope="col"><span class="visually-hidden">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            {sessions.map((s) => (
              <tr key={s.sessionId} class={s.sessionId === chosen ? 'selected' : undefined}>
                <td><code>{s.sessionId}</code></td>
                <td class="num">{formatCount(s.artifacts)}</td>
                <td class="num">{formatBytes(s.logicalBytes)}</td>
                <td class="nowrap wide-only">{s.lastUsedAt}</td>
                <td class="actions">
                  <button type="button" aria-pressed={s.sessionId === chosen} aria-label={`Show session ${s.sessionId}`} onClick={() => onChoose(s.sessionId)}>Show</button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
