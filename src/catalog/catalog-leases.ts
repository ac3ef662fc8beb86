/**
 * Leases (one replica at a time runs collection and the orphan sweep) and
 * the secrets every replica must share. A lease is a row with an expiry, so
 * a holder killed without a word loses it when its TTL passes; taking one is
 * a single upsert that only succeeds for the holder itself or over an
 * expired row, so two replicas racing for it cannot both win.
 *
 * PostgreSQL advisory locks were the other choice, and were not taken: a
 * session lock needs one connection held open for the lease's whole life
 * (outside the pool, and impossible through a transaction-mode pooler),
 * and after a SIGKILL it stays held for as long as the server still thinks
 * the dead replica's TCP connection alive, which no setting here bounds.
 * A row with an expiry lapses at a known time, shows who holds it, and is
 * the same statement on SQLite.
 */
import type { CatalogDb } from './catalog-db.ts';

export async function tryLease(db: CatalogDb, now: Date, name: string, holder: string, ttlMs: number): Promise<boolean> {
  const won = await db.transaction((tx) =>
    tx.all<{ holder: string }>(
      `INSERT INTO leases (name, holder, expires_at) VALUES (?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
       WHERE leases.holder = excluded.holder OR leases.expires_at <= ?
       RETURNING holder`,
      [name, holder, new Date(now.getTime() + ttlMs), now],
    ),
  );
  return won.length === 1;
}

export async function renewLease(db: CatalogDb, now: Date, name: string, holder: string, ttlMs: number): Promise<boolean> {
  const changed = await db.transaction((tx) =>
    tx.run('UPDATE leases SET expires_at = ? WHERE name = ? AND holder = ? AND expires_at > ?', [new Date(now.getTime() + ttlMs), name, holder, now]),
  );
  return changed === 1;
}

export async function releaseLease(db: CatalogDb, name: string, holder: string): Promise<void> {
  await db.transaction((tx) => tx.run('DELETE FROM leases WHERE name = ? AND holder = ?', [name, holder]));
}

export async function sharedSecret(db: CatalogDb, name: string, create: () => string): Promise<string> {
  const read = async () => (await db.read<{ value: string }>('SELECT value FROM shared_secrets WHERE name = ?', [name]))[0]?.value;
  const stored = await read();
  if (stored !== undefined) return stored;
  // Whoever inserts first wins; everyone, the loser included, then reads the winner's value.
  await db.transaction((tx) => tx.run('INSERT INTO shared_secrets (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING', [name, create()]));
  const value = await read();
  if (value === undefined) throw new Error(`The shared secret "${name}" vanished after it was stored.`);
  return value;
}
