/**
 * The caller's row-level scope on PostgreSQL: each setting of the
 * datasource's claimSettings given the caller's claim value with
 * set_config(name, value, true), inside the export's transaction and before
 * the statement. Transaction-local, so the next export on this session
 * starts without it; name and value are bound parameters, never spliced
 * (SET takes no parameters, which is why it is not used). The statement
 * itself can never change them: the read-only check refuses set_config, SET,
 * RESET and DO, and every other way to run SQL text it cannot see.
 */
import type pg from 'pg';
import type { ScopeSetting } from '../../../worker/export-types.ts';

export async function applyScope(client: pg.Client, scope: readonly ScopeSetting[]): Promise<void> {
  if (scope.length === 0) return;
  const calls = scope.map((_, i) => `set_config($${2 * i + 1}, $${2 * i + 2}, true)`).join(', ');
  await client.query(`SELECT ${calls}`, scope.flatMap((s) => [s.name, s.value]));
}
