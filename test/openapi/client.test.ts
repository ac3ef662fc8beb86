/**
 * The generated client (openapi/client) against a running server, called by
 * operationId, and the OpenAPI document checked by an OpenAPI linter
 * (Redocly's rules): the client compiles only while the document matches
 * the routes it uses (`npm test` type-checks before it runs), and the
 * document has no errors.
 */
import { readFileSync } from 'node:fs';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSluiceClient, OPERATIONS, type OperationId, type SluiceClient } from '../../openapi/client/index.ts';
import { operationsOf } from '../../scripts/openapi-document.ts';
import { startTestServer, TOKENS, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let client: SluiceClient;
beforeAll(async () => {
  server = await startTestServer();
  client = createSluiceClient(server.sluice.url, TOKENS.analyst);
});
afterAll(async () => {
  await server?.stop();
});

describe('generated client', () => {
  it('runs a query, reads pages with a cursor, aggregates and describes, each call named by its operationId', async () => {
    const { data: query, error } = await client.submitQuery({
      body: { sql: 'select g::int8 as id, g % 3 as bucket from generate_series(1, 250) g', previewRows: 10 },
    });
    expect(error).toBeUndefined();
    expect(query!.data.completeness.totalRows).toBe(250);
    const id = query!.data.artifact!.id!;
    const first = await client.readArtifact({ params: { path: { id } }, body: { limit: 100, sort: [{ column: 'id', direction: 'desc' }] } });
    const second = await client.readArtifact({
      params: { path: { id } },
      body: { limit: 100, sort: [{ column: 'id', direction: 'desc' }], cursor: first.data!.data.nextCursor! },
    });
    expect(second.data!.data.rows[0]).toEqual(['150', 0]);
    const agg = await client.aggregateArtifact({ params: { path: { id } }, body: { groupBy: ['bucket'], metrics: [{ fn: 'count' }] } });
    expect(agg.data!.data.rows).toEqual([[0, '83'], [1, '84'], [2, '83']]);
    const meta = await client.getArtifact({ params: { path: { id } } });
    expect(meta.data!.data.rowCount).toBe(250);
    const listed = await client.listArtifacts({ params: { query: { limit: 500 } } });
    expect(listed.data!.data.artifacts.map((a) => a.id)).toContain(id);
  });

  it('gets the error envelope, typed, on failure', async () => {
    const { error, response } = await client.submitQuery({ body: { sql: 'delete from nowhere' } });
    expect(response.status).toBe(400);
    expect(error!.errorCode).toBe('READ_ONLY_VIOLATION');
  });

  it('has one call per operation of the document, and keeps the path-based client', async () => {
    const document = JSON.parse(readFileSync('openapi/openapi.json', 'utf8')) as Record<string, unknown>;
    const ids = operationsOf(document).map((o) => o.operationId);
    expect(Object.keys(OPERATIONS).sort()).toEqual([...ids].sort());
    for (const operationId of ids) expect(typeof client[operationId as OperationId], operationId).toBe('function');
    const { data } = await client.byPath.GET('/api/usage');
    expect(data!.data.principal.quotaBytes).toBeGreaterThan(0);
  });
});

describe('the OpenAPI document', () => {
  it('is what the checked-in client types were generated from (npm run openapi regenerates both)', async () => {
    const { default: openapiTS, astToString } = await import('openapi-typescript');
    const generated = astToString(await openapiTS(new URL('../../openapi/openapi.json', import.meta.url)));
    const checkedIn = readFileSync('openapi/client/schema.d.ts', 'utf8');
    // The checked-in file starts with a comment header written by the CLI.
    expect(checkedIn.endsWith(generated) || checkedIn.includes(generated.trim())).toBe(true);
  });

  it('has no errors under the recommended OpenAPI lint rules', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: readFileSync('openapi/openapi.json', 'utf8'), absoluteRef: 'openapi.json', config });
    const errors = problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
    expect(errors).toEqual([]);
  });
});
