/**
 * Everything on top of a datasource works on every kind, with the same
 * guarantees as on PostgreSQL: the listing says kind and dialect; a query
 * gives a preview, exact completeness and an artifact cut at the exact row
 * cap, which reads, aggregates and downloads; a write is refused; schema
 * browsing; a semantic explore compiled to the kind's dialect (a full merge
 * too: MariaDB has no FULL JOIN); chat shown the kind's dialect and counting
 * its fences; the agent, from the schema to a filtered read of the result
 * it kept; the MCP tools. Answers are checked against the rows as
 * kind-sources.ts computes them. MariaDB runs when TEST_MYSQL_URL is set.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LLM_BASE, startFakeLlm, type FakeLlm } from '../../ai/llm-fake.ts';
import { startTestServer, TOKENS, type TestServer } from '../../helpers/server.ts';
import { filesSource, mysqlSource, REGIONS, ROWS, SHOP, sqliteSource, type KindSource } from './kind-sources.ts';

const MYSQL_URL = process.env.TEST_MYSQL_URL ?? '';

/** The scripted model (msw) intercepts this process's fetch; the MCP client's streams go to the server on the fetch from before it. */
const UNINTERCEPTED_FETCH = globalThis.fetch;

const KINDS: { name: string; open: () => Promise<KindSource>; skip: string | null }[] = [
  { name: 'sqlite', open: async () => sqliteSource(), skip: null },
  { name: 'files', open: filesSource, skip: null },
  { name: 'mysql', open: () => mysqlSource(MYSQL_URL), skip: MYSQL_URL === '' ? 'TEST_MYSQL_URL is not set' : null },
];

/** Revenue (in cents) per region, from the rows themselves. */
function revenueByRegion(rows = SHOP): Map<string, number> {
  const sums = new Map<string, number>();
  for (const r of rows) sums.set(r.region, (sums.get(r.region) ?? 0) + r.totalCents);
  return sums;
}

const cents = (value: unknown) => Math.round(Number(value) * 100);

function model(source: KindSource): string {
  return `
explores:
  - name: orders
    datasource: shop
    table: ${source.table}
    dimensions:
      - { name: region, type: string }
      - { name: created_at, type: timestamp, timeGrains: [month] }
    metrics:
      - { name: revenue, type: sum, sql: total }
      - { name: order_count, type: count }
  - name: big_orders
    datasource: shop
    table: ${source.table}
    dimensions:
      - { name: region, type: string }
    metrics:
      - { name: big_count, type: count, sql: "case when total >= 40 then 1 end" }
`;
}

for (const kind of KINDS) {
  describe.skipIf(kind.skip !== null)(`the ${kind.name} kind${kind.skip ? ` (skipped: ${kind.skip})` : ''}`, () => {
    let source: KindSource;
    let server: TestServer;
    let llm: FakeLlm;
    let modelsDir: string;

    beforeAll(async () => {
      source = await kind.open();
      modelsDir = mkdtempSync(join(tmpdir(), 'sluice-kind-models-'));
      writeFileSync(join(modelsDir, 'shop.yml'), model(source));
      llm = startFakeLlm();
      server = await startTestServer({
        SLUICE_DATASOURCES: JSON.stringify([{ id: 'shop', url: source.url }]),
        SLUICE_MODELS_DIR: modelsDir,
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: LLM_BASE,
        SLUICE_AI_MODEL: 'fake-model',
        // Four regions: a merge source of every region is over it, one of two or three is not.
        SLUICE_MERGE_SOURCE_ROWS: '3',
      });
    });
    afterAll(async () => {
      await server?.stop();
      llm?.close();
      await source?.close();
      if (modelsDir) rmSync(modelsDir, { recursive: true, force: true });
    });

    const query = (body: Record<string, unknown>) => server.request('/api/queries', { body: { datasource: 'shop', ...body } });

    it('is listed with its kind and dialect', async () => {
      const r = await server.request('/api/datasources');
      expect(r.body.data.datasources).toContainEqual(expect.objectContaining({ id: 'shop', kind: source.kind, dialect: source.dialect }));
      expect(JSON.stringify(r.body)).not.toContain(source.url);
    });

    it('cuts the artifact at the exact row cap and says so; the artifact reads, aggregates and downloads', async () => {
      const r = await query({ sql: 'SELECT id, region, total FROM shop_orders ORDER BY id', limits: { maxRows: 300 }, previewRows: 5, materialize: 'always' });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const data = r.body.data;
      expect(data.state).toBe('SUCCEEDED');
      // A 64-bit integer column is an exact string by the value rule, a 32-bit one a number: compare the values.
      expect(data.preview.rows.map((row: unknown[]) => Number(row[0]))).toEqual([1, 2, 3, 4, 5]);
      expect(data.completeness).toMatchObject({ status: 'INCOMPLETE', boundedBy: 'maxRows' });
      expect(data.artifact).toMatchObject({ decision: 'CREATED', rowCount: 300 });
      const id = data.artifact.id;

      const north = await server.request(`/api/artifacts/${id}/read`, { body: { filters: [{ column: 'region', op: 'eq', value: 'north' }], sort: [{ column: 'id', direction: 'desc' }], limit: 3 } });
      expect(north.status, JSON.stringify(north.body)).toBe(200);
      const northIds = SHOP.filter((s) => s.id <= 300 && s.region === 'north').map((s) => s.id);
      expect(north.body.data.rows.map((row: unknown[]) => Number(row[0]))).toEqual(northIds.reverse().slice(0, 3));

      const sum = await server.request(`/api/artifacts/${id}/aggregate`, { body: { metrics: [{ fn: 'count' }, { fn: 'sum', column: 'total', as: 'revenue' }] } });
      expect(sum.status, JSON.stringify(sum.body)).toBe(200);
      const [count, revenue] = sum.body.data.rows[0];
      expect(Number(count)).toBe(300);
      expect(cents(revenue)).toBe(SHOP.filter((s) => s.id <= 300).reduce((a, s) => a + s.totalCents, 0));

      const csv = await server.request(`/api/artifacts/${id}/download?format=csv`);
      expect(csv.status).toBe(200);
      expect(String(csv.body).trim().split('\n')).toHaveLength(301);
    });

    it('refuses a write before it reaches the engine, and the table is unchanged', async () => {
      const r = await query({ sql: 'DELETE FROM shop_orders' });
      expect(r.body.errorCode).toBe('READ_ONLY_VIOLATION');
      const count = await query({ sql: 'SELECT COUNT(*) AS n FROM shop_orders' });
      expect(Number(count.body.data.preview.rows[0][0])).toBe(ROWS);
    });

    it('browses its schema', async () => {
      const tables = await server.request('/api/datasources/shop/tables');
      expect(tables.status, JSON.stringify(tables.body)).toBe(200);
      expect(tables.body.data.tables.map((t: { name: string }) => t.name)).toContain('shop_orders');
      const detail = await server.request(`/api/datasources/shop/tables/${source.table}`);
      expect(detail.status, JSON.stringify(detail.body)).toBe(200);
      expect(detail.body.data.columns.map((c: { name: string }) => c.name)).toEqual(['id', 'region', 'total', 'created_at']);
    });

    it('runs a semantic explore compiled to its dialect: a month grain, a contains filter and a bound value', async () => {
      const intent = {
        type: 'metric',
        query: {
          explore: 'orders',
          dimensions: ['orders.region', 'orders.created_at_month'],
          metrics: ['orders.revenue', 'orders.order_count'],
          filters: [
            { field: 'orders.region', op: 'contains', value: 'orth' },
            { field: 'orders.created_at', op: 'gte', value: '2025-02-01T00:00:00Z' },
          ],
        },
      };
      const r = await server.request('/api/semantic/query', { token: TOKENS.analyst, body: { intent, previewRows: 500 } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const expected = new Map<string, number>();
      for (const s of SHOP.filter((row) => row.region === 'north' && row.createdAt >= '2025-02-01')) {
        const month = s.createdAt.slice(0, 7);
        expected.set(month, (expected.get(month) ?? 0) + s.totalCents);
      }
      const rows = r.body.data.preview.rows as unknown[][];
      expect(rows.map((row) => [row[0], String(row[1]).slice(0, 7), cents(row[2])])).toEqual([...expected].sort().map(([month, c]) => ['north', month, c]));
    });

    it('runs a full merge of two explores', async () => {
      const intent = {
        type: 'merge',
        query: {
          sources: [
            { explore: 'orders', dimensions: ['orders.region'], metrics: ['orders.revenue'], filters: [{ field: 'orders.region', op: 'in', value: ['north', 'south'] }] },
            { explore: 'big_orders', dimensions: ['big_orders.region'], metrics: ['big_orders.big_count'], filters: [{ field: 'big_orders.region', op: 'in', value: ['south', 'east'] }] },
          ],
          joinOn: [{ left: 'orders.region', right: 'big_orders.region' }],
          joinType: 'full',
        },
      };
      const r = await server.request('/api/semantic/query', { token: TOKENS.analyst, body: { intent } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const revenue = revenueByRegion();
      const big = (region: string) => SHOP.filter((s) => s.region === region && s.totalCents >= 4000).length;
      const rows = (r.body.data.preview.rows as unknown[][]).map(([region, rev, count]) => [region, rev === null ? null : cents(rev), count === null ? null : Number(count)]);
      expect(rows).toEqual([
        ['east', null, big('east')],
        ['north', revenue.get('north'), null],
        ['south', revenue.get('south'), big('south')],
      ]);
      expect(REGIONS).toContain('east');
    });

    it('fails a merge whose source is over SLUICE_MERGE_SOURCE_ROWS in its one statement, naming the source, even when no row would join', async () => {
      for (const joinType of ['full', 'inner']) {
        const intent = {
          type: 'merge',
          query: {
            sources: [
              { explore: 'orders', dimensions: ['orders.region'], metrics: ['orders.revenue'], filters: [{ field: 'orders.region', op: 'in', value: ['north'] }] },
              // Every region: 4 rows, over the cap of 3. Inner-joined to north, only north would join.
              { explore: 'big_orders', dimensions: ['big_orders.region'], metrics: ['big_orders.big_count'], filters: joinType === 'inner' ? [{ field: 'big_orders.region', op: 'not_in', value: ['north'] }] : [] },
            ],
            joinOn: [{ left: 'orders.region', right: 'big_orders.region' }],
            joinType,
          },
        };
        const before = server.sluice.queriesSubmitted();
        const r = await server.request('/api/semantic/query', { token: TOKENS.analyst, body: { intent } });
        expect(server.sluice.queriesSubmitted()).toBe(before + 1);
        if (joinType === 'inner') {
          // Three regions but north: at the cap, and no row joins; the merge runs and is empty.
          expect(r.status, JSON.stringify(r.body)).toBe(200);
          expect(r.body.data.preview.rows).toEqual([]);
          continue;
        }
        expect(r.status, JSON.stringify(r.body)).toBe(400);
        expect(r.body.errorCode).toBe('SEMANTIC_VALIDATION_ERROR');
        expect(r.body.error.details.errors).toEqual([{ kind: 'source_row_cap', source: 1, message: expect.stringMatching(/^Source 1: explore "big_orders" returns more than 3 rows/) }]);
      }
      const empty = {
        type: 'merge',
        query: {
          sources: [
            { explore: 'orders', dimensions: ['orders.region'], metrics: ['orders.revenue'], filters: [{ field: 'orders.region', op: 'in', value: ['nowhere'] }] },
            { explore: 'big_orders', dimensions: ['big_orders.region'], metrics: ['big_orders.big_count'] },
          ],
          joinOn: [{ left: 'orders.region', right: 'big_orders.region' }],
          joinType: 'inner',
        },
      };
      const r = await server.request('/api/semantic/query', { token: TOKENS.analyst, body: { intent: empty } });
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.error.details.errors.map((e: { kind: string; source: number }) => [e.kind, e.source])).toEqual([['source_row_cap', 1]]);
    });

    it('chats in its dialect: the model is told it, shown its tables, and its fences count as SQL', async () => {
      llm.script({ content: `Try:\n\`\`\`${source.fence}\nSELECT region, COUNT(*) FROM shop_orders GROUP BY region\n\`\`\`` });
      const r = await server.request('/api/ai/chat', { body: { datasource: 'shop', messages: [{ role: 'user', content: 'orders per region' }] } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.blocks).toEqual([{ sql: 'SELECT region, COUNT(*) FROM shop_orders GROUP BY region', kind: 'select' }]);
      const system = llm.requests.at(-1)!.body.messages[0].content as string;
      expect(system).toContain(`write ${source.label} SQL`);
      expect(system).toContain('shop_orders');
    });

    it('runs the agent on it: the schema, a kept result and a filtered read of it, the large result kept out of the model', async () => {
      const unfence = (content: string) => JSON.parse(/^<tool_output untrusted="true">([\s\S]*)<\/tool_output>$/.exec(content)![1]!);
      const toolOutputs = (request: number): string[] => llm.requests[request]!.body.messages.filter((m: any) => m.role === 'tool').map((m: any) => m.content as string);
      llm.script(
        { toolCalls: [{ name: 'list_tables', arguments: JSON.stringify({ schema: source.table.split('.')[0] }) }] },
        { toolCalls: [{ name: 'describe_table', arguments: JSON.stringify({ table: source.table }) }] },
        { toolCalls: [{ name: 'run_select', arguments: JSON.stringify({ sql: `SELECT id, region FROM ${source.table} ORDER BY id`, keep_full_result: true }) }] },
        (body) => {
          const seen = unfence(body.messages.filter((m: any) => m.role === 'tool').at(-1).content);
          return { toolCalls: [{ name: 'read_artifact', arguments: JSON.stringify({ artifact_id: seen.artifact.id, filters: [{ column: 'region', op: 'eq', value: 'east' }] }) }] };
        },
        { content: 'Done.' },
      );
      const r = await server.request('/api/ai/agent', { body: { prompt: 'Which orders are in the east?', datasource: 'shop', sessionId: `agent-${kind.name}` } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.stoppedBy).toBe('answer');
      expect(r.body.transcript.map((s: any) => s.kind + (s.tool_name ? `:${s.tool_name}` : ''))).toEqual(['llm', 'tool:list_tables', 'llm', 'tool:describe_table', 'llm', 'tool:run_select', 'llm', 'tool:read_artifact', 'llm']);
      expect(JSON.stringify(unfence(toolOutputs(1)[0]!))).toContain('shop_orders');
      expect(JSON.stringify(unfence(toolOutputs(2)[1]!))).toContain('region');
      const selected = unfence(toolOutputs(3)[2]!);
      expect(selected.rows).toHaveLength(50);
      expect(selected.completeness).toMatchObject({ status: 'INCOMPLETE', totalRows: ROWS });
      expect(selected.artifact).toMatchObject({ decision: 'CREATED', rowCount: ROWS });
      // The kept result is the run's one artifact, the one the model read.
      expect(r.body.artifacts).toEqual([selected.artifact.id]);
      const east = SHOP.filter((row) => row.region === 'east').map((row) => row.id);
      const filtered = unfence(toolOutputs(4)[3]!);
      expect(filtered.rows.map((row: unknown[]) => Number(row[0]))).toEqual(east.slice(0, 50));
      expect(filtered.rows.every((row: unknown[]) => row[1] === 'east')).toBe(true);
    });

    it('serves the MCP tools on it', async () => {
      const client = new Client({ name: 'sluice-kinds', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${server.sluice.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${TOKENS.analyst}` } }, fetch: UNINTERCEPTED_FETCH }));
      try {
        const listed = (await client.callTool({ name: 'list_tables', arguments: { datasource: 'shop' } })) as any;
        expect(JSON.stringify(listed.structuredContent)).toContain('shop_orders');
        const selected = (await client.callTool({ name: 'run_select', arguments: { datasource: 'shop', sql: 'SELECT id FROM shop_orders WHERE id <= 3 ORDER BY id' } })) as any;
        expect(selected.isError ?? false).toBe(false);
        expect(selected.structuredContent.rows.map((row: unknown[]) => Number(row[0]))).toEqual([1, 2, 3]);
      } finally {
        await client.close();
      }
    });
  });
}
