/**
 * Plain pages cut from windows of rows that the read workers keep decoded
 * (worker/row-windows.ts). A window is WINDOW_ROWS rows of one part,
 * aligned on the part's row groups, so reading one costs DuckDB about what
 * one page of it does; every later page of the same window, whoever asks
 * for it, is cut from the worker's copy: JavaScript arrays where the
 * columns' kinds allow (windowColumnsSql), a DuckDB table otherwise. The
 * pages of a window all go to the worker that keeps it. Only columns
 * JavaScript encodes exactly as DuckDB does qualify (columns/value-json-js.ts);
 * a page of other columns is read by a statement as before.
 */
import { project, windowColumnsSql, windowSql } from '../read-sql.ts';
import { valueEncoder } from '../../columns/value-json-js.ts';
import type { BlobRecord } from '../../catalog/catalog.ts';
import type { PlannedColumn } from '../../columns/column-plan.ts';
import type { ArtifactMeta, ReadPage, ReadRequest } from '../types.ts';
import { leaseParts, whenChecked } from './readable.ts';
import type { StoreContext, WindowWorkers } from './store-context.ts';

/**
 * Rows of a window: the row group DuckDB writes for the parts' ROW_GROUP_SIZE 30000 (it rounds up to
 * whole vectors of 2048 rows), so a window is one row group. A window that straddled two would still
 * be right, only dearer to read.
 */
export const WINDOW_ROWS = 30_720;

/**
 * Compressed bytes a row of the parts may take for their windows to be worth copying: at 800 a row a
 * window is past what a worker keeps of one (a quarter of its 64 MB), whatever the text decodes to.
 */
const MAX_STORED_ROW_BYTES = 800;

/**
 * The columns a page shows, when every one of them can be encoded from a window and the artifact's rows
 * are not so wide that no window of them would be kept; null otherwise.
 */
export function windowColumns(meta: ArtifactMeta, blob: BlobRecord, request: ReadRequest): PlannedColumn[] | null {
  const selected = project(meta.columns, request.columns);
  const rows = blob.parts.reduce((sum, p) => sum + p.rows, 0);
  if (rows > 0 && blob.sizeBytes / rows > MAX_STORED_ROW_BYTES) return null;
  return selected.every((c) => valueEncoder(c.storage) !== null) ? selected : null;
}

/** A number that sends every page of one window to the same worker. */
function affinity(key: string): number {
  let hash = 0;
  for (let i = 0; i < key.length; i++) hash = (Math.imul(hash, 31) + key.charCodeAt(i)) | 0;
  return hash >>> 0;
}

/** The rows `limit` + 1 of a plain page need, as pieces of windows of the parts they lie in. */
function pieces(blob: BlobRecord, offset: number, wanted: number): { part: number; window: number; from: number; to: number }[] {
  const out: { part: number; window: number; from: number; to: number }[] = [];
  let at = offset;
  for (let part = 0; part < blob.parts.length && wanted > 0; part++) {
    const rows = blob.parts[part]!.rows;
    if (at >= rows) {
      at -= rows;
      continue;
    }
    while (at < rows && wanted > 0) {
      const window = Math.floor(at / WINDOW_ROWS) * WINDOW_ROWS;
      const to = Math.min(rows, window + WINDOW_ROWS, at + wanted);
      out.push({ part, window, from: at - window, to: to - window });
      wanted -= to - at;
      at = to;
    }
    at = 0;
  }
  return out;
}

/**
 * A plain page of `selected` (windowColumns), its rows cut from windows; `kept` is false when a
 * window was too wide for its worker to keep, and this reader's pages had better be statements.
 */
export async function windowPage(ctx: StoreContext, windows: WindowWorkers, blob: BlobRecord, selected: PlannedColumn[], request: ReadRequest): Promise<{ page: ReadPage; kept: boolean }> {
  const cut = pieces(blob, request.offset, request.limit + 1);
  const columns = selected.map((c) => ({ name: c.name, type: c.type }));
  if (cut.length === 0) return { page: { columns, rowsJson: [], more: false }, kept: true };
  const first = cut[0]!.part;
  // DuckDB reads a window while the parts not hashed yet in this process are hashed; the rows wait for the check.
  const { files, release, checked } = await leaseParts(ctx, blob, first, cut[cut.length - 1]!.part - first + 1, { checkBeside: true });
  try {
    const storages = selected.map((c) => c.storage);
    const names = selected.map((c) => c.storageName).join('\u0000');
    const keys: string[] = [];
    const reads = cut.map((piece) => {
      const file = files[piece.part - first]!;
      const size = Math.min(WINDOW_ROWS, file.rows - piece.window);
      const key = `${file.sha256}\u0000${piece.window}\u0000${names}`;
      keys.push(key);
      const columnsSql = windowColumnsSql(selected, file.path, piece.window, piece.window + size);
      return windows.read(
        {
          key,
          sql: windowSql(selected, file.path, piece.window, piece.window + size),
          columns: columnsSql === null ? undefined : { sql: columnsSql, first: piece.window, rows: size },
          rowsSql: windowSql(selected, file.path, piece.window + piece.from, piece.window + piece.to),
          storages,
          from: piece.from,
          to: piece.to,
        },
        affinity(key),
      );
    });
    const read = await whenChecked(Promise.all(reads), checked).catch(async (error: unknown) => {
      // The windows were read beside a check that failed: they may hold damaged bytes, and must not outlive this answer.
      await Promise.all(keys.map((key) => windows.forget([key], affinity(key)))).catch(() => undefined);
      throw error;
    });
    const rows = read.flatMap((r) => r.rowsJson);
    const more = rows.length > request.limit;
    return { page: { columns, rowsJson: more ? rows.slice(0, request.limit) : rows, more }, kept: read.every((r) => r.kept) };
  } finally {
    release();
  }
}
