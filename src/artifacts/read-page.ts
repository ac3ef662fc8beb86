/**
 * One page of an artifact for a caller, with the cursor checked and the next
 * one signed: shared by the read route, the agent's read_artifact tool and
 * the MCP resource, so all three page the same way.
 */
import { readShape, type CursorCodec } from './cursor.ts';
import type { ArtifactStore, Filter, SortKey } from './types.ts';

export interface PageRequest {
  cursor?: string | undefined;
  limit: number;
  columns?: string[] | undefined;
  filters?: Filter[] | undefined;
  sort?: SortKey[] | undefined;
}

/**
 * The cursor is checked against the requested id before the store authorizes the read, so a
 * page costs one catalog lookup; a cursor that fails asks the store first all the same, so a
 * missing, expired or another caller's artifact still answers as such whatever the cursor.
 */
function cursorOffset(cursors: CursorCodec, principal: string, id: string, shape: string, cursor: string | undefined): { offset: number } | { error: unknown } {
  if (cursor === undefined) return { offset: 0 };
  try {
    return { offset: cursors.decode(cursor, id, principal, shape) };
  } catch (error) {
    return { error };
  }
}

export async function readArtifactPage(store: ArtifactStore, cursors: CursorCodec, principal: string, id: string, request: PageRequest) {
  const shape = readShape(request);
  const position = cursorOffset(cursors, principal, id, shape, request.cursor);
  if ('error' in position) {
    await store.get(principal, id);
    throw position.error;
  }
  const { offset } = position;
  const page = await store.read(principal, id, { columns: request.columns, filters: request.filters, sort: request.sort, limit: request.limit, offset });
  const nextCursor = page.more ? cursors.encode(id, principal, shape, offset + page.rowsJson.length) : null;
  return { columns: page.columns, rowsJson: page.rowsJson, nextCursor, offset, more: page.more };
}

/** A page's rows as values, for a caller that works on them (the read route answers their text as it is). */
export function pageRows(rowsJson: string[]): unknown[][] {
  return rowsJson.map((row) => JSON.parse(row) as unknown[]);
}
