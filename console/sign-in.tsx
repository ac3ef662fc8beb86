/**
 * Signing in: the token is checked by listing the datasources (a bad token
 * gets the API's UNAUTHORIZED sentence), and the semantic routes are probed
 * once to learn whether the role may use the analyst tabs (Agent,
 * Semantic): a reader is answered FORBIDDEN there.
 */
import { useState } from 'preact/hooks';
import { ApiError, connect, unwrap, type SluiceClient } from './api.ts';
import { ErrorBanner } from './components/error-banner.tsx';
import { Field } from './components/field.tsx';

export interface Signed {
  token: string;
  client: SluiceClient;
  datasources: { id: string; description: string; embedded: boolean; kind: string; dialect: string }[];
  analyst: boolean;
}

export async function signIn(token: string): Promise<Signed> {
  const client = connect(token);
  const listed = await unwrap(client.listDatasources({}));
  let analyst = true;
  try {
    await unwrap(client.listExplores({}));
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'FORBIDDEN') throw error;
    analyst = false;
  }
  return { token, client, datasources: listed.data.datasources, analyst };
}

export function SignInForm({ onSignedIn, initialError }: { onSignedIn: (signed: Signed) => void; initialError: unknown }) {
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(initialError);
  return (
    <main class="sign-in">
      <h1>Sluice</h1>
      <p class="muted">Read-only SQL with exact completeness, and the artifacts behind it.</p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setBusy(true);
          setError(null);
          signIn(token.trim())
            .then(onSignedIn)
            .catch((err: unknown) => setError(err))
            .finally(() => setBusy(false));
        }}
      >
        <Field label="Token">{(id) => <input id={id} type="password" autocomplete="off" value={token} onInput={(e) => setToken(e.currentTarget.value)} />}</Field>
        <button type="submit" class="primary" disabled={busy || token.trim() === ''}>
          Sign in
        </button>
        <p class="muted small">The token is kept for this browser tab only.</p>
      </form>
      <ErrorBanner error={error} />
    </main>
  );
}
