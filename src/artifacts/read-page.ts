/**
 * One page of an artifact for a caller, with the cursor checked and the next
 * one signed: shared by the read route and the agent's read_artifact tool,
 * so both page the same way.
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

export async function readArtifactPage(store: ArtifactStore, cursors: CursorCodec, principal: string, id: string, request: PageRequest) {
  const shape = readShape(request);
  const meta = await store.get(principal, id);
  const offset = request.cursor === undefined ? 0 : cursors.decode(request.cursor, meta.id, principal, shape);
  const page = await store.read(principal, id, { columns: request.columns, filters: request.filters, sort: request.sort, limit: request.limit, offset });
  const nextCursor = page.more ? cursors.encode(meta.id, principal, shape, offset + page.rows.length) : null;
  return { columns: page.columns, rows: page.rows, nextCursor, offset };
}
