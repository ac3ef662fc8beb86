/**
 * For admins: one collection round now (POST /api/admin/maintenance), and
 * what it released, so a person need not wait for the scheduled round.
 */
import { useState } from 'preact/hooks';
import { unwrap, type Schemas, type SluiceClient } from '../api.ts';
import { ErrorBanner } from '../components/error-banner.tsx';
import { formatBytes, formatCount } from '../format.ts';

type Round = Schemas['MaintenanceRound'];

function releasedText(round: Round): string {
  if (!round.ran) return 'Another replica is collecting right now: nothing was released; try again shortly.';
  const parts = [
    `${formatCount(round.blobs)} blobs (${formatBytes(round.bytes)})`,
    `${formatCount(round.tombstones)} tombstones`,
    `${formatCount(round.expired)} expired`,
    `${formatCount(round.orphans)} orphans`,
  ];
  return `Released ${parts.join(', ')}.${round.more ? ' More is waiting for the next round.' : ''}`;
}

export function MaintenanceAction({ client }: { client: SluiceClient }) {
  const [round, setRound] = useState<Round | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  async function run(): Promise<void> {
    setBusy(true);
    setError(null);
    try {
      setRound((await unwrap(client.runMaintenance({}))).data);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section class="toolbar maintenance" aria-label="Maintenance">
      <button type="button" disabled={busy} onClick={() => void run()}>Run maintenance now</button>
      {round !== null ? <p class="summary" role="status">{releasedText(round)}</p> : null}
      <ErrorBanner error={error} />
    </section>
  );
}
