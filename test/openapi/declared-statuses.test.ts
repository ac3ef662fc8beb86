/**
 * Every status a handler really answers is one its operation declares in the
 * OpenAPI document, with the error code named there. Every operation is
 * driven by operationId through its success and failure paths (wrong token,
 * wrong role, bad bodies, unknown and foreign ids, SQL and semantic errors,
 * a query still running, an unconfigured model, an oversized body, the rate
 * limit), then fuzzed as test/reliability/fuzz-routes.test.ts does; each
 * answer is recorded and checked against the document the server serves.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LLM_BASE, startFakeLlm, type FakeLlm } from '../ai/llm-fake.ts';
import { startTestServer, TOKENS, type TestServer } from '../helpers/server.ts';
import { StatusRecorder, undeclaredAnswers } from './status-recorder.ts';

const SCHEMA = 'openapi_statuses';
// `slow` sleeps in the database so that a wait of 0 ms deterministically finds it running.
const MODEL = `
explores:
  - name: numbers
    datasource: default
    sql: "select g::int8 as n, (g % 3)::text as bucket from generate_series(1, 100) g"
    dimensions:
      - { name: bucket, type: string }
    metrics:
      - { name: total, type: sum, sql: n }
  - name: slow
    datasource: default
    sql: "select 1::int8 as n, 'a'::text as bucket from pg_sleep(2)"
    dimensions:
      - { name: bucket, type: string }
    metrics:
      - { name: total, type: sum, sql: n }
`;

let modelsDir: string;
let llm: FakeLlm;
let main: TestServer;
let limited: TestServer;
let document: Record<string, unknown>;
let recorder: StatusRecorder;

beforeAll(async () => {
  modelsDir = mkdtempSync(join(tmpdir(), 'sluice-status-models-'));
  writeFileSync(join(modelsDir, 'statuses.yml'), MODEL);
  llm = startFakeLlm();
  [main, limited] = await Promise.all([
    startTestServer({ SLUICE_MODELS_DIR: modelsDir, OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: LLM_BASE, SLUICE_AI_MODEL: 'fake-model' }),
    // No model configured, a small body limit, and one request a minute per principal.
    startTestServer({ SLUICE_MODELS_DIR: modelsDir, SLUICE_BODY_LIMIT_BYTES: '2048', SLUICE_RATE_LIMIT_PER_MINUTE: '1' }),
  ]);
  await main.sql.query(`drop schema if exists ${SCHEMA} cascade; create schema ${SCHEMA}; create table ${SCHEMA}.items (id int8 primary key, name text)`);
  document = (await main.request('/openapi.json', { token: null })).body as Record<string, unknown>;
  recorder = new StatusRecorder(document);
});
afterAll(async () => {
  await main?.sql.query(`drop schema if exists ${SCHEMA} cascade`).catch(() => undefined);
  await Promise.all([main?.stop(), limited?.stop()]);
  llm?.close();
  if (modelsDir) rmSync(modelsDir, { recursive: true, force: true });
});

const call = (operationId: string, init?: Parameters<StatusRecorder['call']>[2]) => recorder.call(main, operationId, init);

async function driveSystemAndQueries(): Promise<{ artifact: string; spare: string }> {
  await call('getLiveness', { token: null });
  await call('getReadiness', { token: null });
  // This server sets no SLUICE_METRICS_TOKEN: /metrics is open (its 401 is in test/metrics).
  await call('getMetrics', { token: null });
  // Reached on purpose: left to the fuzzer, an operation with no body and no id was sometimes never drawn.
  await call('getMe');

  const done = await call('submitQuery', { body: { sql: 'select g::int8 as id, g % 3 as bucket from generate_series(1, 300) g', materialize: 'always' } });
  const spare = await call('submitQuery', { body: { sql: 'select 1 as one', materialize: 'always' } });
  const running = await call('submitQuery', { body: { sql: 'select pg_sleep(2)', waitMs: 0 } });
  expect(running.status, 'a query past waitMs answers 202').toBe(202);
  await call('getQuery', { path: { id: running.body.data.queryId }, query: 'waitMs=0' });
  await call('cancelQuery', { path: { id: running.body.data.queryId } });
  await call('getQuery', { path: { id: done.body.data.queryId } });
  await call('cancelQuery', { path: { id: done.body.data.queryId } });

  const failed = await call('submitQuery', { body: { sql: 'select 1/0' } });
  await call('getQuery', { path: { id: failed.body.error.details.queryId } });
  await call('cancelQuery', { path: { id: failed.body.error.details.queryId } });
  await call('submitQuery', { body: { sql: 'delete from nowhere' } });
  await call('submitQuery', { body: { sql: 'select nope' } });
  await call('submitQuery', { body: { sql: 'select 1', datasource: 'nowhere' } });
  await call('submitQuery', { body: { sql: 5 } });
  await call('submitQuery', { body: { sql: 'select 1' }, token: null });
  await call('submitQuery', { body: { sql: 'select pg_sleep(3)', limits: { maxDurationMs: 100 } } });
  await call('getQuery', { path: { id: 'qry_nope' } });
  await call('getQuery', { path: { id: done.body.data.queryId }, token: TOKENS.other });
  await call('cancelQuery', { path: { id: 'qry_nope' } });
  const history = await call('listQueryHistory', { query: 'limit=2' });
  await call('listQueryHistory', { query: `cursor=${encodeURIComponent(history.body.data.nextCursor)}&state=SUCCEEDED&datasource=default` });
  await call('listQueryHistory', { query: 'cursor=garbage' });
  await call('listQueryHistory', { query: 'state=DONE' });
  await call('listQueryHistory', { query: 'datasource=nowhere' });
  await call('listQueryHistory', { token: null });
  return { artifact: done.body.data.artifact.id, spare: spare.body.data.artifact.id };
}

async function driveArtifactsAndSessions(artifact: string, spare: string): Promise<void> {
  const id = { id: artifact };
  await call('listArtifacts');
  await call('listArtifacts', { query: 'cursor=garbage' });
  await call('listArtifacts', { query: 'limit=0' });
  await call('getArtifact', { path: id });
  await call('getArtifact', { path: id, token: TOKENS.other });
  const page = await call('readArtifact', { path: id, body: { limit: 10, sort: [{ column: 'id', direction: 'desc' }] } });
  await call('readArtifact', { path: id, body: { limit: 10, cursor: page.body.data.nextCursor } });
  await call('readArtifact', { path: id, body: { cursor: page.body.data.nextCursor } });
  await call('readArtifact', { path: id, body: { cursor: 'garbage' } });
  await call('readArtifact', { path: id, body: { columns: ['nope'] } });
  await call('readArtifact', { path: id, body: { filters: [{ column: 'id', op: 'regex', value: '1' }] } });
  await call('readArtifact', { path: id, rawBody: '{"limit": ', headers: { 'content-type': 'application/json' } });
  await call('readArtifact', { path: id, body: {}, token: TOKENS.other });
  await call('aggregateArtifact', { path: id, body: { groupBy: ['bucket'], metrics: [{ fn: 'count' }, { fn: 'sum', column: 'id' }] } });
  await call('aggregateArtifact', { path: id, body: { metrics: [{ fn: 'sum' }] } });
  await call('aggregateArtifact', { path: id, body: { metrics: [{ fn: 'median', column: 'id' }] } });
  await call('aggregateArtifact', { path: id, body: { metrics: [{ fn: 'count' }] }, token: TOKENS.other });
  for (const format of ['parquet', 'csv', 'jsonl', 'xml']) await call('downloadArtifact', { path: id, query: `format=${format}` });
  await call('downloadArtifact', { path: id, token: TOKENS.other });
  await call('deleteArtifact', { path: { id: spare } });
  await call('deleteArtifact', { path: { id: spare } });
  await call('deleteArtifact', { path: id, token: TOKENS.other });
  await call('getArtifact', { path: { id: spare } });

  await call('copySession', { path: { id: 'default' }, body: { targetSessionId: 'statuses-copy' } });
  await call('copySession', { path: { id: 'default' }, body: { targetSessionId: 'default' } });
  await call('copySession', { path: { id: 'bad id!' }, body: { targetSessionId: 'x' } });
  await call('copySession', { path: { id: 'default' }, body: { targetSessionId: 'x', artifactIds: ['art_nope'] } });
  await call('listSessions');
  await call('listSessions', { token: null });
  await call('exportSession', { path: { id: 'statuses-copy' } });
  await call('exportSession', { path: { id: 'statuses-copy' }, token: TOKENS.other });
  await call('exportSession', { path: { id: 'bad id!' } });
  const bundle = Buffer.from(await (await fetch(`${main.sluice.url}/api/sessions/statuses-copy/export`, { headers: { 'x-token': TOKENS.admin } })).arrayBuffer());
  const tarBody = { 'content-type': 'application/x-tar' };
  await call('importSession', { path: { id: 'statuses-import' }, rawBody: bundle, headers: tarBody });
  await call('importSession', { path: { id: 'statuses-import' }, rawBody: bundle.subarray(0, 700), headers: tarBody });
  await call('importSession', { path: { id: 'statuses-import' }, rawBody: 'not a tar', headers: { 'content-type': 'text/plain' } });
  await call('importSession', { path: { id: 'bad id!' }, rawBody: bundle, headers: tarBody });
  await call('runMaintenance', { token: TOKENS.analyst });
  await call('runMaintenance');
  await call('checkStore', { body: { limit: 5 } });
  await call('checkStore', { body: { cursor: 'garbage' } });
  await call('checkStore', { body: {}, token: TOKENS.analyst });
  await call('getUsage', { query: 'sessionId=default' });
  await call('retireSession', { path: { id: 'statuses-copy' } });
  await call('retireSession', { path: { id: 'bad id!' } });
  await call('getUsage');
  await call('getUsage', { token: TOKENS.reader });
  await call('getUsage', { token: 'not-a-token' });
  await call('listAudit', { query: 'limit=5' });
  await call('listAudit', { query: 'action=read&principal=reader' });
  await call('listAudit', { query: 'cursor=garbage' });
  await call('listAudit', { token: TOKENS.reader });
}

async function driveSchemaAndSemantic(): Promise<void> {
  await call('listDatasources', { token: TOKENS.reader });
  await call('listDatasources', { token: null });
  await call('listTables', { path: { id: 'default' }, query: `schema=${SCHEMA}` });
  await call('listTables', { path: { id: 'nowhere' } });
  await call('listTables', { path: { id: 'default' }, query: 'limit=0' });
  await call('describeTable', { path: { id: 'default', table: `${SCHEMA}.items` } });
  await call('describeTable', { path: { id: 'default', table: `${SCHEMA}.nope` } });
  await call('describeTable', { path: { id: 'default', table: 'a.b.c' } });
  await call('describeTable', { path: { id: 'nowhere', table: 'items' } });

  const analyst = TOKENS.analyst;
  const intent = { explore: 'numbers', dimensions: ['numbers.bucket'], metrics: ['numbers.total'] };
  await call('listExplores', { token: analyst });
  await call('listExplores', { token: TOKENS.reader });
  await call('runSemanticQuery', { token: analyst, body: { intent } });
  const running = await call('runSemanticQuery', { token: analyst, body: { intent: { explore: 'slow', dimensions: ['slow.bucket'], metrics: ['slow.total'] }, waitMs: 0 } });
  expect(running.status, 'a semantic query past waitMs answers 202').toBe(202);
  await call('cancelQuery', { token: analyst, path: { id: running.body.data.queryId } });
  await call('runSemanticQuery', { token: analyst, body: { intent: { explore: 'numbers', metrics: ['numbers.nope'] } } });
  await call('runSemanticQuery', { token: analyst, body: { intent: { explore: 'nowhere', metrics: ['nowhere.total'] } } });
  await call('runSemanticQuery', { token: TOKENS.reader, body: { intent } });
  const chart = { type: 'bar', x: 'numbers.bucket', y: ['numbers.total'] };
  const saved = await call('createVisualization', { token: analyst, body: { intent, chart, title: 'Totals' } });
  await call('createVisualization', { token: analyst, body: { intent, chart: { type: 'bar', x: 'numbers.nope', y: ['numbers.total'] } } });
  await call('createVisualization', { token: analyst, body: { intent, chart: { type: 'pie' } } });
  await call('getVisualization', { token: analyst, path: { id: saved.body.data.id } });
  await call('getVisualization', { token: TOKENS.other, path: { id: saved.body.data.id } });
  await call('renderVisualization', { token: analyst, path: { id: saved.body.data.id } });
  await call('renderVisualization', { token: analyst, path: { id: 'viz_nope' } });
  await call('listVisualizations', { token: analyst, query: 'limit=1' });
  await call('listVisualizations', { token: analyst, query: 'cursor=garbage' });
  await call('listVisualizations', { token: TOKENS.reader });
  const spare = await call('createVisualization', { token: analyst, body: { intent, chart } });
  await call('deleteVisualization', { token: TOKENS.other, path: { id: spare.body.data.id } });
  await call('deleteVisualization', { token: analyst, path: { id: spare.body.data.id } });
  await call('deleteVisualization', { token: analyst, path: { id: spare.body.data.id } });
}

async function driveAi(): Promise<void> {
  const analyst = TOKENS.analyst;
  const messages = [{ role: 'user', content: 'How many items?' }];
  llm.script({ content: 'SELECT count(*) FROM items;' });
  await call('chat', { token: analyst, body: { messages } });
  llm.script({ status: 500 });
  await call('chat', { token: analyst, body: { messages } });
  await call('chat', { token: analyst, body: { messages, datasource: 'nowhere' } });
  await call('chat', { token: analyst, body: { messages: [] } });
  await call('chat', { token: TOKENS.reader, body: { messages } });
  llm.streamPieces(['SELECT', ' 1;']);
  await call('chatStream', { token: analyst, body: { messages } });
  await call('chatStream', { token: analyst, body: { messages, datasource: 'nowhere' } });
  await call('chatStream', { token: TOKENS.reader, body: { messages } });
  llm.script({ content: 'There are no items.' });
  await call('runAgent', { token: analyst, body: { prompt: 'How many items?' } });
  llm.script({ status: 500 });
  await call('runAgent', { token: analyst, body: { prompt: 'How many items?' } });
  await call('runAgent', { token: analyst, body: { prompt: '' } });
  await call('runAgent', { token: TOKENS.reader, body: { prompt: 'x' } });
}

/** The server without a model, a 2 KiB body limit and one request a minute per principal. */
async function driveLimits(): Promise<void> {
  await recorder.call(limited, 'chat', { token: TOKENS.analyst, body: { messages: [{ role: 'user', content: 'hi' }] } });
  for (const operationId of recorder.operationIds) {
    const { method, path } = recorder.operation(operationId);
    if (!path.startsWith('/api/')) continue;
    const ids = { id: 'x', table: 'x' };
    if (method === 'POST') await recorder.call(limited, operationId, { path: ids, rawBody: `"${'x'.repeat(4096)}"`, headers: { 'content-type': 'application/json' } });
    await recorder.call(limited, operationId, { path: ids, ...(method === 'POST' ? { body: {} } : {}) });
  }
}

/** Arbitrary bodies, ids and query strings, as the reliability fuzzer sends them. */
async function fuzz(artifact: string): Promise<void> {
  const operations = recorder.operationIds.filter((id) => id !== 'chatStream');
  const text = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('../../etc/passwd', '%00', "' or 1=1 --", 'NaN', '-1', '1e309', artifact));
  const body = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.record({ sql: text, previewRows: fc.oneof(fc.integer(), fc.string()) }, { requiredKeys: [] }),
    fc.record({ cursor: text, limit: fc.integer(), columns: fc.array(text, { maxLength: 3 }), filters: fc.array(fc.record({ column: text, op: text, value: fc.jsonValue() }), { maxLength: 3 }) }, { requiredKeys: [] }),
    fc.record({ intent: fc.jsonValue(), chart: fc.jsonValue(), metrics: fc.jsonValue(), targetSessionId: text }, { requiredKeys: [] }),
  );
  const sample = fc.record({ operation: fc.nat(), id: text, body, query: text });
  await fc.assert(
    fc.asyncProperty(sample, async (s) => {
      const operationId = operations[s.operation % operations.length]!;
      const { method } = recorder.operation(operationId);
      const q = encodeURIComponent(s.query.slice(0, 50));
      await call(operationId, { path: { id: s.id, table: s.id }, query: `format=${q}&limit=${q}&cursor=${q}&waitMs=0`, ...(method === 'GET' || method === 'DELETE' ? {} : { body: s.body }) });
    }),
    { numRuns: 150 },
  );
}

describe('statuses the handlers answer', () => {
  it('are all declared by their operation, each error with its code named', async () => {
    const { artifact, spare } = await driveSystemAndQueries();
    await driveArtifactsAndSessions(artifact, spare);
    await driveSchemaAndSemantic();
    await driveAi();
    await driveLimits();
    await fuzz(artifact);
    expect(undeclaredAnswers(document, recorder.answers)).toEqual([]);

    // The drive reached every operation, through success and through failure.
    for (const operationId of recorder.operationIds) {
      const statuses = [...recorder.statuses(operationId)];
      expect(statuses.some((s) => s < 300), `${operationId} never succeeded: ${statuses.join(', ')}`).toBe(true);
      if (operationId !== 'getLiveness' && operationId !== 'getReadiness' && operationId !== 'getMetrics') {
        expect(statuses.some((s) => s >= 400), `${operationId} never failed: ${statuses.join(', ')}`).toBe(true);
      }
    }
    for (const status of [202, 400, 401, 403, 404, 413, 429, 502, 503]) {
      expect(recorder.answers.some((a) => a.status === status), `no answer was ${status}`).toBe(true);
    }
  });

  it('would be caught if an operation stopped declaring one of them', () => {
    const trimmed = structuredClone(document) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    delete trimmed.paths['/api/semantic/query']!.post!.responses['202'];
    const answers = [{ operationId: 'runSemanticQuery', status: 202, errorCode: null }];
    expect(undeclaredAnswers(trimmed, answers)).toEqual(['runSemanticQuery answered 202, which it does not declare']);
    const renamed = structuredClone(document) as typeof trimmed & Record<string, unknown>;
    const notFound = renamed.paths['/api/artifacts/{id}']!.get!.responses['404'] as { description: string };
    notFound.description = 'Gone.';
    expect(undeclaredAnswers(renamed, [{ operationId: 'getArtifact', status: 404, errorCode: 'NOT_FOUND' }])).toEqual([
      'getArtifact answered 404 NOT_FOUND, a code its 404 response does not name',
    ]);
  });
});
