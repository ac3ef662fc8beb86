/**
 * GET /metrics: Prometheus' text format that promtool accepts; series that
 * move with what happens (requests by route template, queries by datasource
 * and state, exports, artifacts, the page cache, model calls and tokens);
 * labels that never carry an id or SQL; the metrics token when one is set;
 * and one registry per server, however many run in the process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { LLM_BASE, startFakeLlm, type FakeLlm } from '../ai/llm-fake.ts';
import { createArtifact, startTestServer, TOKENS, type TestServer } from '../helpers/server.ts';
import { HAVE_PROMTOOL, PROMTOOL, promtoolCheck, samplesOf, valueOf } from './exposition.ts';

/** Nothing listens on port 1. */
const DOWN_URL = 'postgres://sluice:secret@127.0.0.1:1/nowhere';
const METRICS_TOKEN = 'metrics-token-0123456789';

let server: TestServer;
let llm: FakeLlm;
beforeAll(async () => {
  llm = startFakeLlm();
  server = await startTestServer({
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: LLM_BASE,
    SLUICE_AI_MODEL: 'fake-model',
    SLUICE_DATASOURCES: JSON.stringify([{ id: 'down', url: DOWN_URL }]),
  });
});
afterAll(async () => {
  await server?.stop();
  llm?.close();
});

async function scrape(target: TestServer = server, headers: Record<string, string> = {}): Promise<string> {
  const response = await fetch(`${target.sluice.url}/metrics`, { headers });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.text();
}

const requests = (text: string, labels: Record<string, string>) => valueOf(text, 'sluice_http_requests_total', labels);

describe('GET /metrics', () => {
  it.skipIf(!HAVE_PROMTOOL)(`passes promtool check metrics, lint included (skipped when ${PROMTOOL} is not installed)`, async () => {
    // Something in every series family first: histograms with samples, labelled counters with values.
    await createArtifact(server, 'select g::int8 as n from generate_series(1, 10) g');
    await server.request('/nowhere');
    const text = await scrape();
    const { code, output } = await promtoolCheck(text);
    expect(output).toBe('');
    expect(code).toBe(0);
  });

  it('names the series the contract lists, and the runtime\u2019s, without the gauges promtool rejects', async () => {
    // A request of its own first: a request is counted once answered, and the test before this one may not run (no promtool).
    await server.request('/nowhere');
    const names = new Set(samplesOf(await scrape()).map((s) => s.name));
    for (const name of [
      'sluice_http_requests_total',
      'sluice_http_request_duration_seconds_bucket',
      'sluice_http_request_duration_seconds_count',
      'sluice_artifacts',
      'sluice_artifact_bytes',
      'sluice_artifact_quota_bytes',
      'sluice_worker_queue_depth',
      'sluice_workers_busy',
      'sluice_ai_requests_total',
      'sluice_ai_tokens_total',
      'sluice_page_cache_requests_total',
      'sluice_collection_rounds_total',
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
    ]) {
      expect(names, name).toContain(name);
    }
    for (const name of names) expect(name).not.toMatch(/^nodejs_active_.*_total$/);
    const text = await scrape();
    expect(samplesOf(text).filter((s) => s.name === 'sluice_worker_queue_depth').map((s) => s.labels.pool).sort()).toEqual(['query', 'read']);
  });

  it('counts requests by route template, method and status: 200s, 401s before the handler, 404s and unmatched paths', async () => {
    const id = await createArtifact(server, 'select 1 as one');
    const before = await scrape();
    await server.request('/healthz', { token: null });
    await server.request('/healthz', { token: null });
    await server.request(`/api/artifacts/${id}`);
    await server.request('/api/artifacts/art_doesnotexist');
    await server.request('/api/queries', { body: { sql: 'select 1' }, token: null });
    await server.request(`/no/such/route/${id}`);
    await server.request('/healthz', { method: 'POST', token: null });
    const after = await scrape();
    const delta = (labels: Record<string, string>) => requests(after, labels) - requests(before, labels);
    expect(delta({ route: '/healthz', method: 'GET', status: '200' })).toBe(2);
    expect(delta({ route: '/api/artifacts/:id', method: 'GET', status: '200' })).toBe(1);
    expect(delta({ route: '/api/artifacts/:id', method: 'GET', status: '404' })).toBe(1);
    expect(delta({ route: '/api/queries', method: 'POST', status: '401' })).toBe(1);
    expect(delta({ route: 'unmatched', method: 'GET', status: '404' })).toBe(1);
    expect(delta({ route: 'unmatched', method: 'POST', status: '404' })).toBe(1);
    const histogram = (text: string) => valueOf(text, 'sluice_http_request_duration_seconds_count', { route: '/healthz', method: 'GET', status: '200' });
    expect(histogram(after) - histogram(before)).toBe(2);
    // Every route label is a template or the fixed one: never a URL with an id in it.
    for (const sample of samplesOf(after).filter((s) => s.labels.route !== undefined)) {
      expect(sample.labels.route === 'unmatched' || sample.labels.route!.startsWith('/'), sample.labels.route).toBe(true);
      expect(sample.labels.route).not.toContain(id);
    }
  });

  it('counts queries by datasource and final state, their errors by code, and the rows and bytes they exported', async () => {
    const before = await scrape();
    const ok = await server.request('/api/queries', { body: { sql: 'select g::int8 as n from generate_series(1, 1234) g', materialize: 'always' } });
    expect(ok.body.data.state).toBe('SUCCEEDED');
    const failed = await server.request('/api/queries', { body: { sql: 'select 1 / (g - 1) from generate_series(1, 3) g' } });
    expect(failed.body.errorCode).toBe('SQL_ERROR');
    const down = await server.request('/api/queries', { body: { sql: 'select 1', datasource: 'down' } });
    expect(down.body.errorCode).toBe('DATASOURCE_UNAVAILABLE');
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) => valueOf(after, name, labels) - valueOf(before, name, labels);
    expect(delta('sluice_queries_total', { datasource: 'default', state: 'SUCCEEDED' })).toBe(1);
    expect(delta('sluice_queries_total', { datasource: 'default', state: 'FAILED' })).toBe(1);
    expect(delta('sluice_query_errors_total', { datasource: 'default', code: 'SQL_ERROR' })).toBe(1);
    expect(delta('sluice_queries_total', { datasource: 'down', state: 'FAILED' })).toBe(1);
    expect(delta('sluice_query_errors_total', { datasource: 'down', code: 'DATASOURCE_UNAVAILABLE' })).toBe(1);
    expect(delta('sluice_export_rows_total', { datasource: 'default' })).toBe(1234);
    expect(delta('sluice_export_bytes_total', { datasource: 'default' })).toBe(ok.body.data.progress.bytesWritten);
    expect(ok.body.data.progress.bytesWritten).toBeGreaterThan(0);
  });

  it('reports the artifacts stored and their bytes from the catalog, and page cache hits and misses', async () => {
    const before = await scrape();
    const id = await createArtifact(server, "select g::int8 as n, repeat('x', 50) as pad from generate_series(1, 500) g");
    const meta = await server.request(`/api/artifacts/${id}`);
    await server.request(`/api/artifacts/${id}/read`, { body: { limit: 10 } });
    await server.request(`/api/artifacts/${id}/read`, { body: { limit: 10 } });
    const after = await scrape();
    expect(valueOf(after, 'sluice_artifacts') - valueOf(before, 'sluice_artifacts')).toBe(1);
    expect(valueOf(after, 'sluice_artifact_bytes') - valueOf(before, 'sluice_artifact_bytes')).toBe(meta.body.data.sizeBytes);
    expect(valueOf(after, 'sluice_artifact_quota_bytes')).toBeGreaterThan(0);
    const cache = (text: string, result: string) => valueOf(text, 'sluice_page_cache_requests_total', { result });
    expect(cache(after, 'miss') - cache(before, 'miss')).toBe(1);
    expect(cache(after, 'hit') - cache(before, 'hit')).toBe(1);

    await server.request(`/api/artifacts/${id}`, { method: 'DELETE' });
    expect(valueOf(await scrape(), 'sluice_artifacts')).toBe(valueOf(after, 'sluice_artifacts') - 1);
  });

  it('counts model calls and the tokens the model server reported, failed calls too', async () => {
    const before = await scrape();
    llm.script({ content: 'Try ```sql\nselect 1\n```' });
    expect((await server.request('/api/ai/chat', { body: { messages: [{ role: 'user', content: 'hi' }] } })).status).toBe(200);
    llm.script({ status: 500 });
    expect((await server.request('/api/ai/chat', { body: { messages: [{ role: 'user', content: 'hi' }] } })).body.errorCode).toBe('AI_UPSTREAM_ERROR');
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string>) => valueOf(after, name, labels) - valueOf(before, name, labels);
    expect(delta('sluice_ai_requests_total', { outcome: 'ok' })).toBe(1);
    expect(delta('sluice_ai_requests_total', { outcome: 'error' })).toBe(1);
    // The fake model server reports 10 prompt and 5 completion tokens per answer.
    expect(delta('sluice_ai_tokens_total', { kind: 'prompt' })).toBe(10);
    expect(delta('sluice_ai_tokens_total', { kind: 'completion' })).toBe(5);
  });

  it('never puts an id, SQL, a token or a principal in a label', async () => {
    const marker = 'select 4242 as label_probe_column';
    const query = await server.request('/api/queries', { body: { sql: marker, materialize: 'always', sessionId: 'sess_label_probe' } });
    const artifactId = query.body.data.artifact.id as string;
    const queryId = query.body.data.queryId as string;
    await server.request(`/api/artifacts/${artifactId}/read`, { body: { limit: 1 } });
    await server.request(`/api/queries/${queryId}`);
    await server.request(`/api/sessions/sess_label_probe/artifacts`).catch(() => undefined);
    await fetch(`${server.sluice.url}/healthz`, { headers: { 'x-request-id': 'req-label-probe' } });
    const text = await scrape();
    const labelValues = samplesOf(text).flatMap((s) => Object.values(s.labels));
    for (const secret of [artifactId, queryId, 'sess_label_probe', 'label_probe_column', '4242', 'req-label-probe', TOKENS.admin, 'secret', '127.0.0.1:1']) {
      expect(labelValues.filter((v) => v.includes(secret)), secret).toEqual([]);
    }
    // Principals' names are short words a route template may contain: no label is one.
    for (const principal of ['admin', 'analyst', 'reader', 'other']) expect(labelValues, principal).not.toContain(principal);
    expect(labelValues.filter((v) => /select|from/i.test(v))).toEqual([]);
  });

  it('keeps each server\u2019s series to itself: a second server in the process starts at zero and registers without a clash', async () => {
    const second = await startTestServer();
    try {
      const text = await scrape(second);
      expect(valueOf(text, 'sluice_queries_total')).toBe(0);
      expect(requests(text, { route: '/healthz' })).toBe(0);
      // The first server's counts are still its own.
      expect(valueOf(await scrape(), 'sluice_queries_total')).toBeGreaterThan(0);
    } finally {
      await second.stop();
    }
  });
});

describe('GET /metrics with SLUICE_METRICS_TOKEN', () => {
  let guarded: TestServer;
  beforeAll(async () => {
    guarded = await startTestServer({ SLUICE_METRICS_TOKEN: METRICS_TOKEN });
  });
  afterAll(async () => {
    await guarded?.stop();
  });

  it('answers 401 in the envelope without the token, with a wrong one, or with an API token', async () => {
    for (const headers of [{}, { 'x-token': 'not-the-metrics-token' }, { authorization: `Bearer ${TOKENS.admin}` }, { 'x-token': TOKENS.admin }]) {
      const response = await fetch(`${guarded.sluice.url}/metrics`, { headers });
      expect(response.status).toBe(401);
      const body = (await response.json()) as Record<string, unknown>;
      expect(body).toMatchObject({ success: false, data: null, errorCode: 'UNAUTHORIZED' });
      expect(JSON.stringify(body)).not.toContain(METRICS_TOKEN);
    }
  });

  it('refuses at start a token too short or with spaces or control characters, without printing it', () => {
    for (const bad of ['short', 'has a space in it', 'line\nbreak-token', 'x'.repeat(257)]) {
      expect(() => loadConfig({ SLUICE_METRICS_TOKEN: bad })).toThrow(/^SLUICE_METRICS_TOKEN must be 8 to 256 printable ASCII characters without spaces\.$/);
    }
    expect(loadConfig({ SLUICE_METRICS_TOKEN: '' }).metricsToken).toBeUndefined();
  });

  it('answers with the token in X-Token or Authorization: Bearer', async () => {
    expect(await scrape(guarded, { 'x-token': METRICS_TOKEN })).toContain('sluice_http_requests_total');
    expect(await scrape(guarded, { authorization: `Bearer ${METRICS_TOKEN}` })).toContain('sluice_http_requests_total');
  });
});
