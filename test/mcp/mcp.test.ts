/**
 * The MCP endpoint tested with the SDK's own client against the running
 * server: list tools, call them, follow the resource link, stay under the
 * size limit, and refuse a client without a valid token.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TOKENS, type TestServer } from '../helpers/server.ts';

const S = 'mcptest';
let server: TestServer;

async function connect(token: string | null): Promise<Client> {
  const client = new Client({ name: 'sluice-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${server.sluice.url}/mcp`), {
    requestInit: { headers: token === null ? {} : { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

beforeAll(async () => {
  // A cell bound below the size limit, so a cut value leaves room for its row.
  server = await startTestServer({ SLUICE_MCP_MAX_CHARS: '6000', SLUICE_PREVIEW_CELL_CHARS: '1000' });
  await server.sql.query(`drop schema if exists ${S} cascade; create schema ${S}`);
  await server.sql.query(`create table ${S}.events as select g::int8 as id, repeat('x', 40) || g as payload from generate_series(1, 2000) g`);
});
afterAll(async () => {
  await server?.sql.query(`drop schema if exists ${S} cascade`).catch(() => undefined);
  await server?.stop();
});

describe('MCP', () => {
  it('lists read-only tools with output schemas', async () => {
    const client = await connect(TOKENS.reader);
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['list_datasources', 'list_tables', 'describe_table', 'run_select', 'read_artifact', 'aggregate_artifact']));
    for (const tool of tools) {
      expect(tool.annotations?.readOnlyHint).toBe(true);
      expect(tool.outputSchema).toBeDefined();
    }
    await client.close();
  });

  it('runs a select: envelope in text, structuredContent, a resource link that resources/read follows', async () => {
    const client = await connect(TOKENS.analyst);
    const result = (await client.callTool({ name: 'run_select', arguments: { sql: `select * from ${S}.events order by id`, keep_full_result: true } })) as any;
    expect(result.isError).toBeFalsy();
    const text = JSON.parse(result.content[0].text);
    expect(text.completeness).toMatchObject({ status: 'INCOMPLETE', totalRows: 2000 });
    expect(result.structuredContent.artifact.decision).toBe('CREATED');
    expect(result.content[0].text.length).toBeLessThanOrEqual(6000);
    const link = result.content.find((c: any) => c.type === 'resource_link');
    expect(link.uri).toBe(`sluice://artifacts/${result.structuredContent.artifact.id}`);
    const resource = await client.readResource({ uri: link.uri });
    const page = JSON.parse((resource.contents[0] as any).text);
    expect(page.rows[0][0]).toBe('1');
    expect((resource.contents[0] as any).text.length).toBeLessThanOrEqual(6000);
    const read = (await client.callTool({ name: 'read_artifact', arguments: { artifact_id: link.name, filters: [{ column: 'id', op: 'lte', value: 3 }] } })) as any;
    expect(read.structuredContent.rows.map((r: any[]) => r[0])).toEqual(['1', '2', '3']);
    const agg = (await client.callTool({ name: 'aggregate_artifact', arguments: { artifact_id: link.name, metrics: [{ fn: 'count' }, { fn: 'sum', column: 'id' }] } })) as any;
    expect(agg.structuredContent.rows).toEqual([['2000', '2001000']]);
    await client.close();
  });

  it('reads at most 50 rows (+1) unless keep_full_result: INCOMPLETE, maxRows set by the server, no artifact, no quota', async () => {
    const client = await connect(TOKENS.other);
    const before = (await server.request('/api/usage', { token: TOKENS.other })).body.data.principal;
    const result = (await client.callTool({ name: 'run_select', arguments: { sql: `select * from ${S}.events order by id` } })) as any;
    expect(result.isError, result.content[0].text).toBeFalsy();
    const out = result.structuredContent;
    expect(out.rows).toHaveLength(50);
    expect(out.rows[49][0]).toBe('50');
    expect(out.completeness).toEqual({ status: 'INCOMPLETE', returnedRows: 50, totalRows: null, boundedBy: 'maxRows', limitSetBy: 'server' });
    expect(out.artifact.decision).toBe('SKIPPED');
    expect(out.notes.join(' ')).toContain('keep_full_result');
    expect(result.content.some((c: any) => c.type === 'resource_link')).toBe(false);
    // Past row 51 every row divides by zero: the statement only succeeds if the database was asked for 51 rows at most.
    const bounded = `select g, 1 / (case when g > 51 then 0 else 1 end) as one from generate_series(1, 2000) g`;
    const cheap = (await client.callTool({ name: 'run_select', arguments: { sql: bounded } })) as any;
    expect(cheap.isError, cheap.content[0].text).toBeFalsy();
    expect(cheap.structuredContent.completeness).toMatchObject({ status: 'INCOMPLETE', boundedBy: 'maxRows', limitSetBy: 'server' });
    const whole = (await client.callTool({ name: 'run_select', arguments: { sql: bounded, keep_full_result: true } })) as any;
    expect(whole.isError).toBe(true);
    expect(JSON.parse(whole.content[0].text).errorCode).toBe('SQL_ERROR');
    // The query's own smaller LIMIT wins; a result under the cap is complete.
    const own = (await client.callTool({ name: 'run_select', arguments: { sql: `select id from ${S}.events order by id limit 7` } })) as any;
    expect(own.structuredContent.rows).toHaveLength(7);
    expect(own.structuredContent.completeness).toMatchObject({ status: 'COMPLETE', totalRows: 7, boundedBy: null });
    const after = (await server.request('/api/usage', { token: TOKENS.other })).body.data.principal;
    expect(after).toEqual(before);
    expect((await server.request('/api/artifacts?sessionId=mcp', { token: TOKENS.other })).body.data.artifacts).toEqual([]);
    // With keep_full_result the whole result is the artifact, charged to the caller.
    const kept = (await client.callTool({ name: 'run_select', arguments: { sql: `select * from ${S}.events order by id`, keep_full_result: true } })) as any;
    expect(kept.structuredContent.rows).toHaveLength(50);
    expect(kept.structuredContent.completeness).toMatchObject({ status: 'INCOMPLETE', totalRows: 2000, boundedBy: 'previewRows' });
    expect(kept.structuredContent.artifact).toMatchObject({ decision: 'CREATED', coverage: 'COMPLETE', rowCount: 2000 });
    const charged = (await server.request('/api/usage', { token: TOKENS.other })).body.data.principal;
    expect(charged.logicalBytes).toBeGreaterThan(before.logicalBytes);
    await client.close();
  });

  it('refuses the old materialize argument, naming it', async () => {
    const client = await connect(TOKENS.analyst);
    const result = (await client.callTool({ name: 'run_select', arguments: { sql: 'select 1', materialize: true } }).catch((error: Error) => ({ isError: true, content: [{ text: error.message }] }))) as any;
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toContain('materialize');
    await client.close();
  });

  it('keeps every result under the size limit and says what it dropped', async () => {
    const client = await connect(TOKENS.analyst);
    const result = (await client.callTool({ name: 'run_select', arguments: { sql: `select id, repeat(payload, 5) from ${S}.events order by id`, keep_full_result: true } })) as any;
    expect(result.content[0].text.length).toBeLessThanOrEqual(6000);
    expect(result.structuredContent.truncatedForSize.dropped).toBeGreaterThan(0);
    expect(result.structuredContent.artifact.decision).toBe('CREATED');
    await client.close();
  });

  it('cuts multi-megabyte values as the preview does, so their rows fit the size limit; the artifact keeps them whole', async () => {
    const client = await connect(TOKENS.analyst);
    const sql = `select g, repeat('m', 3000000) || g as doc from generate_series(1, 3) g`;
    const cells = [0, 1, 2].map((row) => ({ row, column: 1, chars: 3_000_001 }));
    const result = (await client.callTool({ name: 'run_select', arguments: { sql, keep_full_result: true } })) as any;
    expect(result.isError).toBeFalsy();
    expect(result.content[0].text.length).toBeLessThanOrEqual(6000);
    // Every row is there, each value cut to 1000 characters: none dropped for size.
    expect(result.structuredContent.rows).toEqual([1, 2, 3].map((g) => [g, 'm'.repeat(1000)]));
    expect(result.structuredContent.cutCells).toEqual(cells);
    expect(result.structuredContent.truncatedForSize).toBeUndefined();
    expect(result.structuredContent.completeness).toMatchObject({ status: 'INCOMPLETE', totalRows: 3, boundedBy: 'previewBytes' });
    const id = result.structuredContent.artifact.id as string;

    // The artifact tools and the resource cut the same way, from a page that holds the values whole.
    const read = (await client.callTool({ name: 'read_artifact', arguments: { artifact_id: id } })) as any;
    expect(read.structuredContent.rows).toEqual([1, 2, 3].map((g) => [g, 'm'.repeat(1000)]));
    expect(read.structuredContent.cutCells).toEqual(cells);
    const agg = (await client.callTool({ name: 'aggregate_artifact', arguments: { artifact_id: id, metrics: [{ fn: 'max', column: 'doc', as: 'longest' }] } })) as any;
    expect(agg.structuredContent.rows).toEqual([['m'.repeat(1000)]]);
    expect(agg.structuredContent.cutCells).toEqual([{ row: 0, column: 0, chars: 3_000_001 }]);
    const resource = await client.readResource({ uri: `sluice://artifacts/${id}` });
    expect(JSON.parse((resource.contents[0] as any).text).cutCells).toEqual(cells);
    const whole = await server.request(`/api/artifacts/${id}/read`, { token: TOKENS.analyst, body: { columns: ['doc'], limit: 1 } });
    expect(whole.body.data.rows).toEqual([['m'.repeat(3_000_000) + '1']]);
    await client.close();
  }, 240_000);

  it('reports a write attempt as a tool error, changing nothing', async () => {
    const client = await connect(TOKENS.analyst);
    const result = (await client.callTool({ name: 'run_select', arguments: { sql: `delete from ${S}.events` } })) as any;
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.content[0].text).errorCode).toBe('READ_ONLY_VIOLATION');
    const [row] = await server.sql.query(`select count(*)::int n from ${S}.events`);
    expect(row!.n).toBe(2000);
    await client.close();
  });

  it('refuses a client without a valid token', async () => {
    await expect(connect(null)).rejects.toThrow();
    await expect(connect('not-a-token-at-all')).rejects.toThrow();
    const r = await server.request('/mcp', { token: null, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
    expect(r.status).toBe(401);
    expect(r.body.errorCode).toBe('UNAUTHORIZED');
  });
});
