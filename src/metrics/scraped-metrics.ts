/**
 * Series read when Prometheus scrapes, from what the server already keeps:
 * the catalog's workspace counters (one row, however many artifacts there
 * are), the worker pools' queues, the page cache's and the collector's
 * counts. Nothing here scans the store. A catalog that does not answer in
 * time leaves the artifact gauges at their last value; the scrape still
 * answers.
 */
import { Counter, Gauge, type Registry } from 'prom-client';

export type PoolName = 'query' | 'read';

export interface WorkspaceCounts {
  artifacts: number;
  /** Bytes stored (equal results counted once), what the workspace quota is checked against. */
  bytes: number;
  quotaBytes: number;
}

/** Where the scraped series come from; each answers from counters, in constant time. */
export interface ScrapeSources {
  workspace(): Promise<WorkspaceCounts>;
  pools(): Record<PoolName, { queued: number; busy: number }>;
  pageCache(): { hits: number; misses: number };
  collectionRounds(): { ran: number; skipped: number; failed: number };
}

/** How long a scrape waits for the catalog before it answers with the last counts. */
const CATALOG_WAIT_MS = 2_000;
/**
 * The workspace gauges of one scrape share one catalog read: prom-client
 * collects every series of a scrape at once, so they all join the read in
 * flight. Null when the catalog fails or does not answer in time.
 */
function workspaceSnapshots(read: () => Promise<WorkspaceCounts>): () => Promise<WorkspaceCounts | null> {
  let inFlight: Promise<WorkspaceCounts | null> | null = null;
  return () => {
    if (inFlight !== null) return inFlight;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), CATALOG_WAIT_MS)));
    const counts = Promise.race([read().catch(() => null), late]).finally(() => {
      clearTimeout(timer);
      inFlight = null;
    });
    inFlight = counts;
    return counts;
  };
}

/** A counter whose count is kept elsewhere (monotonic there): set from it at each scrape. */
function mirroredCounter(registry: Registry, name: string, help: string, label: string, read: () => Record<string, number>): void {
  new Counter({
    name,
    help,
    labelNames: [label],
    registers: [registry],
    collect() {
      this.reset();
      for (const [value, count] of Object.entries(read())) this.inc({ [label]: value }, count);
    },
  });
}

function workspaceGauge(registry: Registry, name: string, help: string, snapshot: () => Promise<WorkspaceCounts | null>, pick: (c: WorkspaceCounts) => number): void {
  new Gauge({
    name,
    help,
    registers: [registry],
    async collect() {
      const counts = await snapshot();
      if (counts !== null) this.set(pick(counts));
    },
  });
}

export function addScrapedMetrics(registry: Registry, sources: ScrapeSources): void {
  const snapshot = workspaceSnapshots(() => sources.workspace());
  workspaceGauge(registry, 'sluice_artifacts', 'Artifacts in the workspace (all principals, all replicas).', snapshot, (c) => c.artifacts);
  workspaceGauge(registry, 'sluice_artifact_bytes', 'Bytes of artifacts stored (equal results counted once).', snapshot, (c) => c.bytes);
  workspaceGauge(registry, 'sluice_artifact_quota_bytes', 'The workspace quota (SLUICE_WORKSPACE_QUOTA_BYTES) that sluice_artifact_bytes is held to.', snapshot, (c) => c.quotaBytes);
  const poolGauge = (name: string, help: string, pick: (p: { queued: number; busy: number }) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['pool'],
      registers: [registry],
      collect() {
        for (const [pool, state] of Object.entries(sources.pools())) this.set({ pool }, pick(state));
      },
    });
  poolGauge('sluice_worker_queue_depth', 'Tasks waiting for a worker thread, by pool (query: exports; read: pages, aggregates, downloads).', (p) => p.queued);
  poolGauge('sluice_workers_busy', 'Worker threads running a task, by pool.', (p) => p.busy);
  mirroredCounter(registry, 'sluice_page_cache_requests_total', 'Lookups in the page cache (pages, blocks of rows for readers following cursors, aggregates), by result: hit (served from memory, or shared with a read in flight) or miss (read from Parquet).', 'result', () => {
    const { hits, misses } = sources.pageCache();
    return { hit: hits, miss: misses };
  });
  mirroredCounter(registry, 'sluice_collection_rounds_total', 'Collection rounds (expiry and reclamation), by outcome (ran; skipped: another replica holds the lease; failed).', 'outcome', () => sources.collectionRounds());
}
