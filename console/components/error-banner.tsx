/**
 * An API failure as the person should see it: the envelope's summary
 * sentence, the error code, and the message when it adds something.
 */
import { ApiError } from '../api.ts';

export function ErrorBanner({ error }: { error: unknown }) {
  if (error === null || error === undefined) return null;
  const api = error instanceof ApiError ? error : null;
  const text = error instanceof Error ? error.message : String(error);
  return (
    <div class="error" role="alert">
      {api !== null ? <span class="badge badge-bad">{api.code}</span> : null}
      <span class="error-text">{text}</span>
      {api?.detail ? <p class="error-detail">{api.detail}</p> : null}
    </div>
  );
}
