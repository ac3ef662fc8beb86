/**
 * What the operator should hear about the datasource's user at start-up:
 * privileges beyond reading. Sluice runs every query READ ONLY and refuses
 * what can write files, lock or lift the read-only mode, but a user with only
 * SELECT is the safer boundary: FILE reads and writes the server's files,
 * SUPER and the like can lift read-only for the session, and any write
 * privilege is one the checks are all that stands in front of.
 */

/** Privileges a read needs (USAGE is "no privilege"). */
const READING = new Set(['USAGE', 'SELECT', 'SHOW VIEW', 'SHOW DATABASES']);

/** The privileges of SHOW GRANTS lines beyond reading, as the lines name them. */
export function privilegesBeyondSelect(grants: string[]): string[] {
  const extra = new Set<string>();
  for (const line of grants) {
    const upper = line.toUpperCase();
    if (!upper.startsWith('GRANT ')) continue;
    const on = upper.indexOf(' ON ');
    // "GRANT role TO user" grants a role, whose own grants SHOW GRANTS lists apart.
    if (on === -1) continue;
    for (const raw of upper.slice('GRANT '.length, on).split(',')) {
      const privilege = raw.replace(/\(.*\)/, '').trim();
      if (privilege !== '' && !READING.has(privilege)) extra.add(privilege);
    }
    if (upper.includes('WITH GRANT OPTION')) extra.add('GRANT OPTION');
  }
  return [...extra];
}
