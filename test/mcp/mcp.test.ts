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
  server = await startTestServer({ SLUICE_MCP_MAX_CHARS: '6000' });
  await server.sql.unsafe(`drop schema if exists ${S} cascade; create schema ${S}`);
  await server.sql.unsafe(`create table ${S}.events as select g::int8 as id, repeat('x', 40) || g as payload from generate_series(1, 2000) g`);
});
afterAll(async () => {
  await server?.sql.unsafe(`drop schema if exists ${S} cascade`).catch(() => undefined);
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
    const result = (await client.callTool({ name: 'run_select', arguments: { sql: `select * from ${S}.events order by id` } })) as any;
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

  it('keeps every result under the size limit and says what it dropped', async () => {
    const client = await connect(TOKENS.analyst);
    const result = (await client.callTool({ name: 'run_select', arguments: { sql: `select id, repeat(payload, 5) from ${S}.events order by id` } })) as any;
    expect(result.content[0].text.length).toBeLessThanOrEqual(6000);
    expect(result.structuredContent.truncatedForSize.dropped).toBeGreaterThan(0);
    expect(result.structuredContent.artifact.decision).toBe('CREATED');
    await client.close();
  });

  it('reports a write attempt as a tool error, changing nothing', async () => {
    const client = await connect(TOKENS.analyst);
    const result = (await client.callTool({ name: 'run_select', arguments: { sql: `delete from ${S}.events` } })) as any;
    expect(result.isError).toBe(true);
    expect(JSON.parse(result.content[0].text).errorCode).toBe('READ_ONLY_VIOLATION');
    const [row] = await server.sql.unsafe(`select count(*)::int n from ${S}.events`);
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
