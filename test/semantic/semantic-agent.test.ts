/**
 * The semantic tools of the agent: fields must be discovered before use,
 * validation errors reach the model as actionable messages, and a merge and
 * a chart can be made without raw SQL.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TOKENS, type TestServer } from '../helpers/server.ts';
import { LLM_BASE, startFakeLlm, type FakeLlm } from '../ai/llm-fake.ts';

const S = 'semagent';
let server: TestServer;
let llm: FakeLlm;
let modelsDir: string;

const unfence = (content: string) => JSON.parse(/^<tool_output untrusted="true">([\s\S]*)<\/tool_output>$/.exec(content)![1]!);
const toolOutputs = (i: number) => llm.requests[i]!.body.messages.filter((m: any) => m.role === 'tool').map((m: any) => unfence(m.content));

const intent = {
  type: 'merge',
  query: {
    sources: [
      { explore: 'visits', dimensions: ['visits.page'], metrics: ['visits.visit_count'] },
      { explore: 'signups', dimensions: ['signups.page'], metrics: ['signups.signup_count'] },
    ],
    joinOn: [{ left: 'visits.page', right: 'signups.page' }],
  },
};
const call = (name: string, args: unknown) => ({ toolCalls: [{ name, arguments: JSON.stringify(args) }] });

beforeAll(async () => {
  llm = startFakeLlm();
  modelsDir = mkdtempSync(join(tmpdir(), 'sluice-models-'));
  writeFileSync(
    join(modelsDir, 'web.yml'),
    `explores:
  - { name: visits, table: ${S}.visits, dimensions: [{ name: page, type: string }], metrics: [{ name: visit_count, type: count }] }
  - { name: signups, table: ${S}.signups, dimensions: [{ name: page, type: string }], metrics: [{ name: signup_count, type: count }] }
  - { name: clicks, table: ${S}.clicks, dimensions: [{ name: page, type: string }], metrics: [{ name: click_count, type: count }] }
`,
  );
  server = await startTestServer({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: LLM_BASE, SLUICE_MODELS_DIR: modelsDir });
  await server.sql.query(`drop schema if exists ${S} cascade; create schema ${S}`);
  await server.sql.query(`create table ${S}.visits as select (array['home','pricing','docs'])[1 + g % 3] as page from generate_series(1, 300) g`);
  await server.sql.query(`create table ${S}.signups as select (array['home','pricing'])[1 + g % 2] as page from generate_series(1, 40) g`);
  await server.sql.query(`create table ${S}.clicks as select 'p' || g as page from generate_series(1, 700) g`);
});
afterAll(async () => {
  await server?.sql.query(`drop schema if exists ${S} cascade`).catch(() => undefined);
  await server?.stop();
  llm?.close();
  rmSync(modelsDir, { recursive: true, force: true });
});

describe('agent semantic tools', () => {
  it('refuses fields not yet discovered, then merges and charts with discovered ones', async () => {
    llm.script(
      call('run_query', { intent }),
      call('list_explores', {}),
      call('find_fields', { query: 'page count' }),
      call('run_query', { intent }),
      call('generate_visualization', { intent, chart: { type: 'bar', x: 'visits.page', y: ['visits.visit_count', 'signups.signup_count'] }, title: 'Visits and signups' }),
      { content: 'Pricing converts best.' },
    );
    const r = await server.request('/api/ai/agent', { token: TOKENS.analyst, body: { prompt: 'Which page converts best?' } });
    expect(r.body.stoppedBy).toBe('answer');
    expect(llm.requests[0]!.body.tools.map((t: any) => t.function.name)).toEqual(['list_tables', 'describe_table', 'run_select', 'read_artifact', 'aggregate_artifact', 'list_explores', 'find_fields', 'run_query', 'generate_visualization']);
    // The prompt tells the model about the semantic tools because they are offered, not because of how many tools there are.
    expect(llm.requests[0]!.body.messages[0].content).toContain('list_explores');
    const outputs = toolOutputs(5);
    expect(outputs[0].error).toMatchObject({ code: 'BAD_ARGUMENTS' });
    expect(outputs[0].error.message).toContain('find_fields');
    expect(outputs[1].explores.map((e: any) => e.name)).toEqual(['visits', 'signups', 'clicks']);
    expect(outputs[2].fields.map((f: any) => f.id)).toContain('signups.signup_count');
    expect(outputs[3].rows).toEqual([
      ['docs', '100', null],
      ['home', '100', '20'],
      ['pricing', '100', '20'],
    ]);
    // run_query says its queryId, as the HTTP answer does: the query can be looked up again.
    expect(outputs[3].queryId).toMatch(/^qry_/);
    const again = await server.request(`/api/queries/${outputs[3].queryId}`, { token: TOKENS.analyst });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ queryId: outputs[3].queryId, state: 'SUCCEEDED' });
    expect(again.body.data.preview.rows).toEqual(outputs[3].rows);
    const viz = outputs[4];
    expect(viz).toMatchObject({ drawnRows: 3, totalRows: 3 });
    const svg = await server.request(viz.render, { token: TOKENS.analyst });
    expect(svg.body).toMatch(/^<svg/);
  });

  it('generate_visualization says it draws the first 500 of more rows', async () => {
    const many = { type: 'metric', query: { explore: 'clicks', dimensions: ['clicks.page'], metrics: ['clicks.click_count'] } };
    llm.script(
      call('find_fields', { query: 'page click' }),
      call('generate_visualization', { intent: many, chart: { type: 'bar', x: 'clicks.page', y: ['clicks.click_count'] } }),
      { content: 'ok' },
    );
    await server.request('/api/ai/agent', { token: TOKENS.analyst, body: { prompt: 'chart clicks' } });
    expect(toolOutputs(2)[1]).toMatchObject({ drawnRows: 500, totalRows: 700 });
  });

  it('passes the semantic layer\u2019s validation message to the model', async () => {
    llm.script(
      call('find_fields', { query: 'page count' }),
      call('run_query', { intent: { ...intent, query: { ...intent.query, joinOn: [] } } }),
      { content: 'ok' },
    );
    await server.request('/api/ai/agent', { token: TOKENS.analyst, body: { prompt: 'x' } });
    const error = toolOutputs(2)[1].error;
    expect(error.code).toBe('SEMANTIC_VALIDATION_ERROR');
    expect(error.message).toMatch(/joinOn/);
  });
});
