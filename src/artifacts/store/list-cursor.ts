/** The artifact listing's `nextCursor` (see catalog/keyset-cursor.ts); anything that does not decode is INVALID_CURSOR. */
import { SluiceError } from '../../errors.ts';
import type { ListPosition } from '../../catalog/catalog.ts';
import { decodeKeysetCursor, encodeKeysetCursor } from '../../catalog/keyset-cursor.ts';

export function encodeListCursor(position: ListPosition): string {
  return encodeKeysetCursor(position);
}

export function decodeListCursor(cursor: string): ListPosition {
  return decodeKeysetCursor(cursor, () => new SluiceError('INVALID_CURSOR', 'This listing cursor is not one this server handed out; start the listing again without it.'));
}
