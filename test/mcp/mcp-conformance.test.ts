/**
 * Every MCP tool's result conforms to the output schema it declares, as two
 * independent clients check it against a running server: the MCP Inspector
 * CLI (spawned as a child process, the way a person would run it) and the
 * SDK's client (which validates structuredContent once it has listed the
 * tools). Both the full and the size-bounded form of a result are called.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TOKENS, type TestServer } from '../helpers/server.ts';

const S = 'mcpconf';
const INSPECTOR = resolve('node_modules/.bin/mcp-inspector');
let server: TestServer;
let client: Client;
let scratch: string;
let artifactId: string;

const intent = { type: 'metric', query: { explore: 'visits', dimensions: ['visits.page'], metrics: ['visits.visit_count'] } };

/** One call per tool; arguments may use the artifact a previous call made. */
const CALLS: { tool: string; args: () => Record<string, unknown>; truncated?: boolean }[] = [
  { tool: 'list_datasources', args: () => ({}) },
  { tool: 'list_tables', args: () => ({ schema: S }) },
  { tool: 'describe_table', args: () => ({ table: `${S}.events` }) },
  { tool: 'run_select', args: () => ({ sql: `select * from ${S}.events order by id`, keep_full_result: true }) },
  { tool: 'run_select', args: () => ({ sql: `select id, repeat(payload, 20) as wide from ${S}.events order by id`, keep_full_result: true }), truncated: true },
  { tool: 'run_select', args: () => ({ sql: `select * from ${S}.events order by id` }) },
  { tool: 'read_artifact', args: () => ({ artifact_id: artifactId, filters: [{ column: 'id', op: 'lte', value: 3 }], sort: [{ column: 'id', direction: 'desc' }] }) },
  { tool: 'read_artifact', args: () => ({ artifact_id: artifactId }), truncated: false },
  { tool: 'aggregate_artifact', args: () => ({ artifact_id: artifactId, metrics: [{ fn: 'count' }, { fn: 'max', column: 'id', as: 'top' }] }) },
  { tool: 'list_explores', args: () => ({}) },
  { tool: 'find_fields', args: () => ({ query: 'page visit' }) },
  { tool: 'run_query', args: () => ({ intent }) },
  { tool: 'generate_visualization', args: () => ({ intent, chart: { type: 'bar', x: 'visits.page', y: ['visits.visit_count'] }, title: 'Visits' }) },
];

function inspector(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const base = ['--cli', `${server.sluice.url}/mcp`, '--transport', 'http', '--header', `X-Token: ${TOKENS.analyst}`, '--format', 'json'];
  // The Inspector keeps a catalog and OAuth state under HOME: a scratch one keeps the machine's untouched.
  const env = { ...process.env, HOME: scratch, MCP_CATALOG_PATH: join(scratch, 'catalog.json'), MCP_CLIENT_CONFIG_PATH: join(scratch, 'client.json') };
  return new Promise((done) => {
    execFile(INSPECTOR, [...base, ...args], { env, timeout: 120_000 }, (error, stdout, stderr) => {
      done({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'sluice-inspector-'));
  const models = join(scratch, 'models');
  mkdirSync(models);
  writeFileSync(join(models, 'web.yml'), `explores:\n  - { name: visits, table: ${S}.visits, dimensions: [{ name: page, type: string }], metrics: [{ name: visit_count, type: count }] }\n`);
  server = await startTestServer({ SLUICE_MCP_MAX_CHARS: '6000', SLUICE_MODELS_DIR: models });
  await server.sql.query(`drop schema if exists ${S} cascade; create schema ${S}`);
  await server.sql.query(`create table ${S}.events (id int8 primary key, payload text)`);
  await server.sql.query(`insert into ${S}.events select g, repeat('x', 40) || g from generate_series(1, 300) g`);
  await server.sql.query(`create table ${S}.visits as select (array['home','pricing','docs'])[1 + g % 3] as page from generate_series(1, 90) g`);
  client = new Client({ name: 'sluice-conformance', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.sluice.url}/mcp`), { requestInit: { headers: { 'x-token': TOKENS.analyst } } }));
});
afterAll(async () => {
  await client?.close();
  await server?.sql.query(`drop schema if exists ${S} cascade`).catch(() => undefined);
  await server?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe('MCP tool results conform to their output schemas', () => {
  it('lists every tool with an output schema, and the calls below cover every one', async () => {
    // The SDK client validates each later callTool against the schemas listed here.
    const { tools } = await client.listTools();
    expect(new Set(CALLS.map((c) => c.tool))).toEqual(new Set(tools.map((t) => t.name)));
    for (const tool of tools) expect(tool.outputSchema, tool.name).toBeDefined();
    const listed = await inspector(['--method', 'tools/list', '--strict']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).result.tools.map((t: { name: string }) => t.name)).toEqual(tools.map((t) => t.name));
  });

  for (const [i, call] of CALLS.entries()) {
    it(`${call.tool} #${i}: accepted by the SDK client and by the MCP Inspector`, async () => {
      const viaSdk = (await client.callTool({ name: call.tool, arguments: call.args() })) as { isError?: boolean; structuredContent?: Record<string, any>; content: { type: string; text?: string }[] };
      expect(viaSdk.isError, viaSdk.content[0]?.text).toBeFalsy();
      const structured = viaSdk.structuredContent!;
      expect(JSON.parse(viaSdk.content[0]!.text!)).toEqual(structured);
      if (call.tool === 'run_select' && call.args().keep_full_result === true && !call.truncated) artifactId = structured.artifact.id;
      if (call.truncated !== undefined) expect(structured.truncatedForSize !== undefined, JSON.stringify(structured.truncatedForSize)).toBe(call.truncated);

      const viaInspector = await inspector(['--method', 'tools/call', '--tool-name', call.tool, '--tool-args-json', JSON.stringify(call.args())]);
      expect(viaInspector.stdout + viaInspector.stderr).not.toMatch(/must NOT|must have|must be|validation/i);
      expect(viaInspector.code, viaInspector.stdout + viaInspector.stderr).toBe(0);
      const result = JSON.parse(viaInspector.stdout).result;
      expect(result.isError).toBeFalsy();
      expect(Object.keys(result.structuredContent).sort()).toEqual(Object.keys(structured).sort());
    });
  }

  it('the size-bounded run_select kept the artifact handle and said how many rows it dropped', async () => {
    const result = (await client.callTool({ name: 'run_select', arguments: CALLS[4]!.args() })) as { structuredContent: Record<string, any>; content: { text: string }[] };
    const { truncatedForSize, artifact, rows } = result.structuredContent;
    expect(result.content[0]!.text.length).toBeLessThanOrEqual(6000);
    expect(truncatedForSize).toMatchObject({ list: 'rows', shown: rows.length, dropped: 50 - rows.length });
    expect(truncatedForSize.note).toContain(`${50 - rows.length} of 50 rows were dropped`);
    expect(artifact).toMatchObject({ decision: 'CREATED', rowCount: 300 });
  });
});
