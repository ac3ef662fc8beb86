/**
 * Signing in: /api/me checks the token (a bad one gets the API's
 * UNAUTHORIZED sentence) and says the caller's roles, which decide whether
 * the analyst tabs (Agent, Semantic) are offered; the datasources listed
 * are the ones the Query tab can pick from; admins also get maintenance.
 */
import { useState } from 'preact/hooks';
import { connect, unwrap, type SluiceClient } from './api.ts';
import { ErrorBanner } from './components/error-banner.tsx';
import { Field } from './components/field.tsx';

export interface Signed {
  token: string;
  client: SluiceClient;
  datasources: { id: string; description: string; embedded: boolean; kind: string; dialect: string }[];
  analyst: boolean;
  /** May run maintenance. */
  admin: boolean;
}

export async function signIn(token: string): Promise<Signed> {
  const client = connect(token);
  const me = await unwrap(client.getMe({}));
  const listed = await unwrap(client.listDatasources({}));
  const analyst = me.data.roles.some((role) => role === 'analyst' || role === 'admin');
  const admin = me.data.roles.includes('admin');
  return { token, client, datasources: listed.data.datasources, analyst, admin };
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
