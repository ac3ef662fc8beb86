/**
 * Copies the artifacts ticked in the list to another session of the caller
 * (POST /api/sessions/{source}/copy with artifactIds): references only, so
 * nothing is stored twice. The ticked artifacts must share one session, the
 * one the copy names as its source.
 */
import { useState } from 'preact/hooks';
import { unwrap, type Artifact, type SluiceClient } from '../api.ts';
import { Field } from '../components/field.tsx';

interface Props {
  client: SluiceClient;
  selected: Artifact[];
  onCopied: (targetSessionId: string) => void;
  onError: (error: unknown) => void;
}

export function CopyArtifacts({ client, selected, onCopied, onError }: Props) {
  const [target, setTarget] = useState('');
  const [busy, setBusy] = useState(false);
  const sources = [...new Set(selected.map((a) => a.sessionId))];

  async function copy(): Promise<void> {
    const source = sources[0];
    if (source === undefined) return;
    setBusy(true);
    try {
      const body = { targetSessionId: target.trim(), artifactIds: selected.map((a) => a.id) };
      await unwrap(client.copySession({ params: { path: { id: source } }, body }));
      onCopied(body.targetSessionId);
    } catch (e) {
      onError(e);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="toolbar copy-artifacts" onSubmit={(e) => { e.preventDefault(); void copy(); }}>
      <span>{selected.length} selected</span>
      <Field label="Copy to session">{(id) => <input id={id} value={target} onInput={(e) => setTarget(e.currentTarget.value)} placeholder="session id" />}</Field>
      <button type="submit" disabled={busy || selected.length === 0 || sources.length !== 1 || target.trim() === ''}>Copy selected</button>
      {sources.length > 1 ? <span class="muted">Tick artifacts of one session to copy them.</span> : null}
    </form>
  );
}
