/**
 * The audit route's cursor: where the next page starts (the last entry's
 * time and id), opaque to callers. It carries nothing a caller could not
 * see on the page itself, so it needs no signature; anything that does not
 * decode to a position is INVALID_CURSOR, as on every other listing.
 */
import { SluiceError } from '../../errors.ts';
import type { AuditPosition } from '../../catalog/ports/audit-port.ts';

export function encodeAuditCursor(position: AuditPosition): string {
  return Buffer.from(JSON.stringify([position.at, position.id]), 'utf8').toString('base64url');
}

export function decodeAuditCursor(cursor: string): AuditPosition {
  const refused = () => new SluiceError('INVALID_CURSOR', 'This audit cursor is not one this route handed out; send nextCursor as it came, or start again without it.');
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw refused();
  }
  if (!Array.isArray(decoded) || decoded.length !== 2) throw refused();
  const [at, id] = decoded as unknown[];
  if (typeof at !== 'string' || typeof id !== 'string' || id.length === 0 || id.length > 100) throw refused();
  const time = new Date(at);
  if (Number.isNaN(time.getTime()) || time.toISOString() !== at) throw refused();
  return { at, id };
}
