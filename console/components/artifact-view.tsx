/**
 * One artifact in a table: pages through it by the API's cursor (keeping the
 * cursors already seen, so Previous page goes back without a new query),
 * with a column choice, filters and a sort by column header, all applied by
 * the API's read route, plus download links. Nothing here runs the query
 * again: every page comes from the stored Parquet.
 */
import { useEffect, useState } from 'preact/hooks';
import { unwrap, type Artifact, type Column, type SluiceClient } from '../api.ts';
import { DataTable, type SortState } from './data-table.tsx';
import { DownloadLinks } from './download-links.tsx';
import { ErrorBanner } from './error-banner.tsx';
import { formatCount } from '../format.ts';
import { ColumnPicker, describeFilter, FilterForm, type Filter } from './read-controls.tsx';

const PAGE_ROWS = 50;

interface Page {
  columns: Column[];
  rows: unknown[][];
  nextCursor: string | null;
  summary: string;
}

interface Props {
  client: SluiceClient;
  artifactId: string;
  /** The artifact's columns when the caller knows them already (from a preview); else they are fetched. */
  columns?: Column[];
}

export function ArtifactView({ client, artifactId, columns: knownColumns }: Props) {
  const [meta, setMeta] = useState<Artifact | null>(null);
  const [chosen, setChosen] = useState<string[] | null>(null);
  const [filters, setFilters] = useState<Filter[]>([]);
  const [sort, setSort] = useState<SortState | null>(null);
  // cursors[i] is the cursor that reads page i (page 0 has none).
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [pageIndex, setPageIndex] = useState(0);
  const [page, setPage] = useState<Page | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(false);

  useEffect(() => {
    let live = true;
    unwrap(client.getArtifact({ params: { path: { id: artifactId } } }))
      .then((r) => live && setMeta(r.data))
      .catch((e: unknown) => live && setError(e));
    return () => {
      live = false;
    };
  }, [client, artifactId]);

  useEffect(() => {
    let live = true;
    setLoading(true);
    const cursor = cursors[pageIndex];
    const body = {
      limit: PAGE_ROWS,
      ...(cursor !== undefined ? { cursor } : {}),
      ...(chosen !== null ? { columns: chosen } : {}),
      ...(filters.length > 0 ? { filters } : {}),
      ...(sort !== null ? { sort: [sort] } : {}),
    };
    unwrap(client.readArtifact({ params: { path: { id: artifactId } }, body }))
      .then((r) => {
        if (!live) return;
        setPage({ ...r.data, summary: r.summary });
        setError(null);
      })
      .catch((e: unknown) => live && setError(e))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [client, artifactId, chosen, filters, sort, cursors, pageIndex]);

  /** A new column choice, filter or sort starts again at page 1: cursors are bound to them. */
  function restart(): void {
    setCursors([undefined]);
    setPageIndex(0);
  }

  function nextPage(): void {
    if (page?.nextCursor == null) return;
    const next = page.nextCursor;
    setCursors((seen) => [...seen.slice(0, pageIndex + 1), next]);
    setPageIndex(pageIndex + 1);
  }

  function toggleSort(column: string): void {
    setSort((current) => (current?.column !== column ? { column, direction: 'asc' } : current.direction === 'asc' ? { column, direction: 'desc' } : null));
    restart();
  }

  const allColumns = meta?.columns ?? knownColumns ?? page?.columns ?? [];
  const firstRow = pageIndex * PAGE_ROWS + 1;
  return (
    <section class="artifact-view" aria-label={`Artifact ${artifactId}`} aria-busy={loading}>
      <div class="toolbar">
        <code class="artifact-id">{artifactId}</code>
        {meta !== null ? <span class="muted">{meta.coverage === 'PREFIX' ? `first ${formatCount(meta.rowCount)} rows (cut by ${meta.boundedBy ?? 'a cap'})` : `${formatCount(meta.rowCount)} rows`}</span> : null}
        <DownloadLinks client={client} artifactId={artifactId} />
      </div>
      <div class="toolbar">
        <ColumnPicker columns={allColumns} chosen={chosen} onChange={(next) => { setChosen(next); setSort(null); restart(); }} />
        <FilterForm columns={allColumns} ops={meta?.capabilities.filterOps ?? null} onAdd={(f) => { setFilters([...filters, f]); restart(); }} />
      </div>
      {filters.length > 0 ? (
        <ul class="chips" aria-label="Filters">
          {filters.map((f, i) => (
            <li key={i} class="chip">
              {describeFilter(f)}
              <button type="button" class="chip-remove" aria-label={`Remove filter ${describeFilter(f)}`} onClick={() => { setFilters(filters.filter((_, j) => j !== i)); restart(); }}>
                ×
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <ErrorBanner error={error} />
      <div class="pager">
        <button type="button" disabled={pageIndex === 0 || loading} onClick={() => setPageIndex(pageIndex - 1)}>
          Previous page
        </button>
        <span class="page-summary" aria-live="polite">{page?.summary ?? 'Reading…'}</span>
        <button type="button" disabled={page?.nextCursor == null || loading} onClick={nextPage}>
          Next page
        </button>
      </div>
      {page !== null ? <DataTable columns={page.columns} rows={page.rows} caption={`Rows of ${artifactId}`} sort={sort} onSort={toggleSort} firstRow={firstRow} /> : null}
    </section>
  );
}
