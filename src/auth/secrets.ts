/**
 * Secrets kept in the data dir: the generated admin token (when no tokens
 * are configured) and the key that signs read cursors. Created once with
 * owner-only permissions and reused, so cursors and tokens survive restarts.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Secrets {
  adminToken: string;
  cursorKey: string;
}

export function loadSecrets(dataDir: string): { secrets: Secrets; created: boolean } {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'secrets.json');
  if (existsSync(file)) return { secrets: JSON.parse(readFileSync(file, 'utf8')) as Secrets, created: false };
  const secrets: Secrets = {
    adminToken: `slc_${randomBytes(24).toString('base64url')}`,
    cursorKey: randomBytes(32).toString('base64url'),
  };
  writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return { secrets, created: true };
}
