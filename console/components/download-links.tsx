/**
 * Download links for an artifact. The download route needs the token in a
 * header, which a plain link cannot send, so a click fetches the file through
 * the client and hands it to the browser as a blob: URL with a file name.
 */
import { useState } from 'preact/hooks';
import { DOWNLOAD_FORMATS, type DownloadFormat } from '../../src/vocabulary.ts';
import { ApiError, type SluiceClient } from '../api.ts';
import { ErrorBanner } from './error-banner.tsx';

/** Keyed by every format the API offers, so a new format without a label does not type-check. */
const LABELS: Record<DownloadFormat, string> = { parquet: 'Parquet', csv: 'CSV', jsonl: 'JSONL' };

/**
 * With artifact bytes in S3, a Parquet download answers 307 to a pre-signed
 * link. The console does not follow it: the request carries the person's
 * token, which must not travel to the storage host, and the page's policy
 * lets it talk to this origin only. It says so instead, as a notice of its
 * own rather than an API error code.
 */
const STORED_ELSEWHERE = new Error(
  'This Parquet file is served straight from object storage through a short-lived link, which the console does not follow; download it with an HTTP client (curl -L with your token as Authorization: Bearer), or choose CSV or JSONL here.',
);

async function fetchFile(client: SluiceClient, id: string, format: DownloadFormat): Promise<Blob> {
  const { data, error, response } = await client.downloadArtifact({ params: { path: { id }, query: { format } }, parseAs: 'blob', redirect: 'manual' });
  if (response.type === 'opaqueredirect') throw STORED_ELSEWHERE;
  if (!response.ok || !(data instanceof Blob)) {
    const envelope = error as { summary?: string; errorCode?: string } | undefined;
    throw new ApiError(envelope?.errorCode ?? `HTTP_${response.status}`, envelope?.summary ?? `The download failed with HTTP ${response.status}.`, null);
  }
  return data;
}

export function DownloadLinks({ client, artifactId }: { client: SluiceClient; artifactId: string }) {
  const [busy, setBusy] = useState<DownloadFormat | null>(null);
  const [error, setError] = useState<unknown>(null);

  async function download(event: Event, format: DownloadFormat): Promise<void> {
    event.preventDefault();
    setBusy(format);
    setError(null);
    try {
      const blob = await fetchFile(client, artifactId, format);
      const url = URL.createObjectURL(blob);
      const anchor = document.createElement('a');
      anchor.href = url;
      anchor.download = `${artifactId}.${format}`;
      document.body.append(anchor);
      anchor.click();
      anchor.remove();
      // Let the browser start reading the blob before it is released.
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(null);
    }
  }

  return (
    <div class="downloads">
      <span class="muted">Download</span>
      {DOWNLOAD_FORMATS.map((format) => (
        <a key={format} href={`#download-${format}`} class="download" aria-busy={busy === format} onClick={(e) => void download(e, format)}>
          {LABELS[format]}
        </a>
      ))}
      <ErrorBanner error={error} />
    </div>
  );
}
