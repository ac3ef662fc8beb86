/**
 * The `nextCursor` of the catalog's newest-first listings (artifacts, query
 * history, visualizations): the keyset position of the page's last row,
 * opaque to callers. It needs no signature: every listing is scoped to the
 * caller, so a forged position can only page the caller's own rows.
 */
import { Buffer } from 'node:buffer';
import type { SluiceError } from '../errors.ts';
import type { ListPosition } from './ports/artifacts-port.ts';

export function encodeKeysetCursor(position: ListPosition): string {
  return Buffer.from(JSON.stringify([position.createdAt, position.id])).toString('base64url');
}

/** The position a cursor holds; `invalid()` is thrown for anything this server did not hand out. */
export function decodeKeysetCursor(cursor: string, invalid: () => SluiceError): ListPosition {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'string' && !Number.isNaN(Date.parse(value[0]))) {
      return { createdAt: value[0], id: value[1] };
    }
  } catch {
    // Falls through to the error below.
  }
  throw invalid();
}
