/**
 * Pages and aggregates of an artifact, authorized against the catalog every
 * time, then answered from the store's cache of recent answers or by DuckDB
 * on a read worker over the leased parts. A plain page (no filter, no sort)
 * leases and reads only the parts its rows are in.
 *
 * A plain page of up to a quarter of BLOCK_ROWS rows that starts where a
 * page served lately to the same reader ended (a caller following its
 * cursor) is cut from a block of BLOCK_ROWS rows, read once (a 100-row page
 * costs DuckDB most of what a block costs: it decodes the row group's pages
 * either way) and kept with the other answers, so that reader's next pages
 * come from memory on this thread. Any other plain page that size is cut
 * from the row groups the read workers keep decoded (window-reads.ts),
 * whoever asked for the others and in whatever order; where windows do not
 * serve (columns only DuckDB encodes, rows too wide to keep), it is a
 * statement of its own. A larger page is read on its own.
 */
import { buildAggregateStatement } from '../aggregate-sql.ts';
import { pageRows } from '../read-page.ts';
import type { BlobRecord } from '../../catalog/catalog.ts';
import type { BoundValue } from '../filter-values.ts';
import { buildReadStatement, isPlainRead, plainWindow, type PartFile } from '../read-sql.ts';
import type { AggregateRequest, AggregateResult, ArtifactMeta, ReadPage, ReadRequest } from '../types.ts';
import { PageCache, type CachedAnswer } from './page-cache.ts';
import { leaseParts, readable, whenChecked } from './readable.ts';
import { windowColumns, windowPage } from './window-reads.ts';
import type { StoreContext } from './store-context.ts';

/** Rows read at once for a reader that follows its cursor (a multiple of 1000, the largest page, would align blocks with pages of 1000; 1024 keeps pages of 100 and 1000 from always straddling two). */
export const BLOCK_ROWS = 1024;
/** How many "the next page starts here" marks are kept, across artifacts and readers. */
const FOLLOW_MARKS = 10_000;

interface Statement {
  sql: string;
  params: BoundValue[];
  columns: { name: string; type: string }[];
}

interface ReadState {
  /** Pages and aggregates (kept as pages: their rows' JSON text), told apart by their keys' first word. */
  answers: PageCache<ReadPage>;
  /** Where the next page of a page served lately starts, by artifact and projection: Map order is age. */
  next: Map<string, true>;
  /** Readers whose blocks are too large for the cache to keep: each of their pages is read on its own. */
  unblocked: Map<string, true>;
  /** Readers whose windows are too wide for a worker to keep: their pages are statements (window-reads.ts). */
  wide: Map<string, true>;
}

/** Each store's cache and marks; a store's context lives as long as the store. */
const states = new WeakMap<StoreContext, ReadState>();

function stateOf(ctx: StoreContext): ReadState {
  let state = states.get(ctx);
  if (state === undefined) states.set(ctx, (state = { answers: new PageCache<ReadPage>(), next: new Map(), unblocked: new Map(), wide: new Map() }));
  return state;
}

/** The store's page cache's hits and misses since it opened. */
export function pageCacheCounts(ctx: StoreContext): { hits: number; misses: number } {
  return stateOf(ctx).answers.counts;
}

/**
 * Leases `count` parts from `first`, runs the statement built over them, and keeps `limit` rows (the one past it says whether more exist),
 * as JSON text. `small` marks a plain page or block, which the worker runs on its single-threaded DuckDB.
 */
async function run(ctx: StoreContext, blob: BlobRecord, limit: number, first: number, count: number, build: (files: PartFile[]) => Statement, small = false): Promise<CachedAnswer<ReadPage>> {
  // DuckDB reads while the parts not hashed yet in this process are hashed; the rows wait for the check.
  const { files, release, checked } = await leaseParts(ctx, blob, first, count, { checkBeside: true });
  try {
    const statement = build(files);
    const result = await whenChecked(ctx.workers.read(statement.sql, statement.params, { small }), checked);
    const more = result.length > limit;
    return answerOf({ columns: statement.columns.map((c) => ({ name: c.name, type: c.type })), rowsJson: more ? result.slice(0, limit) : result, more });
  } finally {
    release();
  }
}

/** About the memory rows kept as JSON text hold, for the cache's bound: two bytes a character, and a string's header. */
export function textBytes(rowsJson: string[]): number {
  return rowsJson.reduce((sum, row) => sum + 2 * row.length + 16, 64);
}

function plainRun(ctx: StoreContext, meta: ArtifactMeta, blob: BlobRecord, request: ReadRequest): Promise<CachedAnswer<ReadPage>> {
  const window = plainWindow(blob.parts.map((p) => p.rows), request.offset, request.limit);
  // Large pages stay on the worker's parallel DuckDB: past a few row groups its second thread pays.
  const small = request.limit <= BLOCK_ROWS;
  return run(ctx, blob, request.limit, window.first, window.count, (files) => buildReadStatement(meta.columns, files, { ...request, offset: window.offset }), small);
}

/** Adds `key` to a map used as a bounded set, oldest out first. */
function remember(marks: Map<string, true>, key: string): void {
  marks.set(key, true);
  for (const oldest of marks.keys()) {
    if (marks.size <= FOLLOW_MARKS) break;
    marks.delete(oldest);
  }
}

/** Marks where the page after this one starts; answers whether this one starts where a page served lately ended. */
function follows(state: ReadState, reader: string, request: ReadRequest): boolean {
  const here = `${reader}\u0000${request.offset}`;
  const followed = request.offset > 0 && state.next.delete(here);
  remember(state.next, `${reader}\u0000${request.offset + request.limit}`);
  return followed;
}

/** A plain page cut from the blocks it overlaps, each read once and kept with the other answers. */
async function fromBlocks(ctx: StoreContext, state: ReadState, meta: ArtifactMeta, blob: BlobRecord, reader: string, request: ReadRequest, total: number): Promise<ReadPage> {
  const end = Math.min(total, request.offset + request.limit + 1);
  const rows: string[] = [];
  let columns: ReadPage['columns'] = [];
  for (let block = Math.floor(request.offset / BLOCK_ROWS); block * BLOCK_ROWS < end; block++) {
    const start = block * BLOCK_ROWS;
    const blockRequest = { columns: request.columns, limit: BLOCK_ROWS, offset: start };
    const key = `block\u0000${reader}\u0000${block}`;
    const read = await state.answers.get(key, () => plainRun(ctx, meta, blob, blockRequest));
    // A block the cache would not keep (wide rows) would be read again for every page it holds.
    if (!state.answers.holds(key)) remember(state.unblocked, reader);
    columns = read.columns;
    rows.push(...read.rowsJson.slice(Math.max(0, request.offset - start), end - start));
  }
  const more = rows.length > request.limit;
  return { columns, rowsJson: more ? rows.slice(0, request.limit) : rows, more };
}

export async function readPage(ctx: StoreContext, principal: string, id: string, request: ReadRequest): Promise<ReadPage> {
  const { meta, blob } = await readable(ctx, principal, id);
  const state = stateOf(ctx);
  // The artifact's id and its bytes' hash: the answer cannot change while both stay the same.
  const artifact = `${meta.id}\u0000${blob.hash}`;
  if (!isPlainRead(request)) {
    return state.answers.get(`read\u0000${artifact}\u0000${JSON.stringify(request)}`, () => run(ctx, blob, request.limit, 0, blob.parts.length, (files) => buildReadStatement(meta.columns, files, request)));
  }
  const pageKey = `read\u0000${artifact}\u0000${JSON.stringify(request)}`;
  const reader = `${artifact}\u0000${JSON.stringify(request.columns ?? null)}`;
  // Pages of a few hundred rows: a larger one costs a window's copy nearly what it costs a statement, and gains little from it.
  const small = request.limit <= BLOCK_ROWS / 4;
  const total = blob.parts.reduce((sum, p) => sum + p.rows, 0);
  // A reader following its cursor takes its pages from blocks, which the API thread keeps and cuts without a trip to a
  // worker. Windows are for pages asked out of sequence: fifty readers each in a window of its own would take turns
  // evicting each other's windows from the workers, a row group's copy for each page (75-158 pages/s against 409-620).
  // Large pages are read on their own: a block is then hardly larger, and never more than one page's worth of memory is read for a page.
  if (follows(state, reader, request) && small && request.offset < total && !state.unblocked.has(reader)) return fromBlocks(ctx, state, meta, blob, reader, request, total);
  const windowed = ctx.workers.windows !== undefined && small && !state.wide.has(reader) ? windowColumns(meta, blob, request) : null;
  if (windowed !== null) {
    return state.answers.get(pageKey, async () => {
      const { page, kept } = await windowPage(ctx, ctx.workers.windows!, blob, windowed, request);
      if (!kept) remember(state.wide, reader);
      return answerOf(page);
    });
  }
  return state.answers.get(pageKey, () => plainRun(ctx, meta, blob, request));
}

function answerOf(page: ReadPage): CachedAnswer<ReadPage> {
  return { value: page, bytes: textBytes(page.rowsJson) };
}

export async function aggregate(ctx: StoreContext, principal: string, id: string, request: AggregateRequest): Promise<AggregateResult> {
  const { meta, blob } = await readable(ctx, principal, id);
  const key = `aggregate\u0000${meta.id}\u0000${blob.hash}\u0000${JSON.stringify(request)}`;
  const page = await stateOf(ctx).answers.get(key, () => run(ctx, blob, request.limit, 0, blob.parts.length, (files) => buildAggregateStatement(meta.columns, files, request)));
  return { columns: page.columns, rows: pageRows(page.rowsJson), more: page.more };
}
