/**
 * The artifact listing's `nextCursor`: the catalog's keyset position,
 * opaque to callers. It needs no signature: a listing is scoped to the
 * caller, so a forged position can only page the caller's own artifacts;
 * anything that does not decode is INVALID_CURSOR.
 */
import { Buffer } from 'node:buffer';
import { SluiceError } from '../../errors.ts';
import type { ListPosition } from '../../catalog/catalog.ts';

export function encodeListCursor(position: ListPosition): string {
  return Buffer.from(JSON.stringify([position.createdAt, position.id])).toString('base64url');
}

export function decodeListCursor(cursor: string): ListPosition {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'string') {
      return { createdAt: value[0], id: value[1] };
    }
  } catch {
    // Falls through to the error below.
  }
  throw new SluiceError('INVALID_CURSOR', 'This listing cursor is not one this server handed out; start the listing again without it.');
}
