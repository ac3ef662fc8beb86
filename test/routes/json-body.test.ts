/**
 * Every JSON route reads a JSON body whatever its Content-Type says (curl -d
 * sends application/x-www-form-urlencoded), as the documented AI calls are
 * written; a body that is not JSON, and a missing one, are VALIDATION_ERROR
 * and run nothing; the body limit still holds.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createArtifact, startTestServer, TOKENS, type TestServer } from '../helpers/server.ts';
import { LLM_BASE, startFakeLlm, type FakeLlm } from '../ai/llm-fake.ts';

const run = promisify(execFile);

/** A curl command line as the AI Chat / AI Agent API and the README write it: `-d` with no Content-Type of its own. */
async function curl(line: string, env: Record<string, string>): Promise<any> {
  const { stdout } = await run('sh', ['-c', line], { env: { ...process.env, ...env } });
  return JSON.parse(stdout);
}

let server: TestServer;
let small: TestServer;
let llm: FakeLlm;

/** Content types a client may send a JSON body with; null sends none at all. */
const CONTENT_TYPES = [null, 'application/x-www-form-urlencoded', 'text/plain', 'application/json; charset=utf-8'] as const;

async function send(target: TestServer, path: string, body: string | null, contentType: string | null) {
  const headers: Record<string, string> = { 'x-token': TOKENS.admin };
  if (contentType !== null) headers['content-type'] = contentType;
  // Bytes, not a string: fetch would add text/plain to a string body sent without a Content-Type.
  const response = await fetch(`${target.sluice.url}${path}`, { method: 'POST', headers, ...(body === null ? {} : { body: new TextEncoder().encode(body) }) });
  return { status: response.status, body: (await response.json()) as any };
}

beforeAll(async () => {
  llm = startFakeLlm();
  [server, small] = await Promise.all([
    startTestServer({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: LLM_BASE, SLUICE_AI_MODEL: 'fake-model' }),
    startTestServer({ SLUICE_BODY_LIMIT_BYTES: '2048' }),
  ]);
});
afterAll(async () => {
  await Promise.all([server?.stop(), small?.stop()]);
  llm?.close();
});

describe('the documented curl lines, run by curl as written', () => {
  it('chat and the agent answer a body sent with curl -d', async () => {
    const env = { SLUICE: server.sluice.url, TOKEN: TOKENS.admin };
    llm.script({ content: 'Revenue by region:\n```sql\nselect 1\n```' });
    const chat = await curl(`curl -s -X POST $SLUICE/api/ai/chat -H "X-Token: $TOKEN" -d '{"messages": [{"role": "user", "content": "Revenue by region?"}]}'`, env);
    expect(chat).toMatchObject({ message: expect.stringContaining('Revenue by region'), blocks: [{ sql: 'select 1', kind: 'select' }] });
    llm.script({ content: 'North.' });
    const agent = await curl(`curl -s -X POST "$SLUICE/api/ai/agent" -H "X-Token: $TOKEN" -d '{"prompt": "Which region had the most revenue last month?"}'`, env);
    expect(agent).toMatchObject({ answer: 'North.', stoppedBy: 'answer', iterations: 1 });
    expect(llm.requests.at(-1)!.body.messages.at(-1)).toMatchObject({ role: 'user', content: 'Which region had the most revenue last month?' });
  });
});

describe('a JSON body under any Content-Type', () => {
  for (const contentType of CONTENT_TYPES) {
    it(`is read as JSON with ${contentType ?? 'no Content-Type'}: chat, queries, artifact reads`, async () => {
      llm.script({ content: 'Use ```sql\nselect 1\n```' });
      const chat = await send(server, '/api/ai/chat', JSON.stringify({ messages: [{ role: 'user', content: 'one?' }] }), contentType);
      expect(chat.status, JSON.stringify(chat.body)).toBe(200);
      expect(chat.body.blocks).toEqual([{ sql: 'select 1', kind: 'select' }]);
      expect(llm.requests.at(-1)!.body.messages.at(-1)).toEqual({ role: 'user', content: 'one?' });

      const query = await send(server, '/api/queries', JSON.stringify({ sql: 'select 41 + 1 as answer', previewRows: 5 }), contentType);
      expect(query.status, JSON.stringify(query.body)).toBe(200);
      expect(query.body.data.preview.rows).toEqual([[42]]);

      const id = await createArtifact(server, 'select g as n from generate_series(1, 3) g order by g');
      // limit 1 only holds if the body was read (no body means the default of 100).
      const read = await send(server, `/api/artifacts/${id}/read`, JSON.stringify({ limit: 1, columns: ['n'] }), contentType);
      expect(read.status, JSON.stringify(read.body)).toBe(200);
      expect(read.body.data.rows).toEqual([[1]]);
      expect(read.body.data.nextCursor).toEqual(expect.any(String));
    });
  }

  it('still answers VALIDATION_ERROR naming the field for JSON that does not fit the schema', async () => {
    const r = await send(server, '/api/queries', JSON.stringify({ sql: 5 }), 'application/x-www-form-urlencoded');
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, errorCode: 'VALIDATION_ERROR' });
    expect(r.body.error.message).toContain('sql');
  });
});

describe('a body that is not JSON', () => {
  const NOT_JSON = ['sql=select+1', 'not json', '{"sql": ', "{'sql': 'select 1'}"];

  it('is VALIDATION_ERROR under every Content-Type, and nothing runs', async () => {
    llm.script({ content: 'should not be asked' });
    const submitted = server.sluice.queriesSubmitted();
    for (const contentType of CONTENT_TYPES) {
      for (const body of NOT_JSON) {
        for (const path of ['/api/ai/chat', '/api/queries']) {
          const r = await send(server, path, body, contentType);
          expect(r.status, `${path} ${contentType} ${body}`).toBe(400);
          expect(r.body).toMatchObject({ success: false, data: null, errorCode: 'VALIDATION_ERROR' });
          expect(r.body.error.message).toContain('not valid JSON');
          expect(r.body.summary).toEqual(expect.any(String));
        }
      }
    }
    expect(llm.requests).toHaveLength(0);
    expect(server.sluice.queriesSubmitted()).toBe(submitted);
  });

  it('and a missing body where one is required is VALIDATION_ERROR saying so', async () => {
    for (const contentType of CONTENT_TYPES) {
      for (const path of ['/api/ai/chat', '/api/queries', '/api/artifacts/art_x/read']) {
        for (const body of [null, '', '  \n']) {
          const r = await send(server, path, body, contentType);
          expect(r.status, `${path} ${contentType} ${JSON.stringify(body)}`).toBe(400);
          expect(r.body.errorCode).toBe('VALIDATION_ERROR');
          expect(r.body.error.message).toContain('needs a JSON body');
        }
      }
    }
  });

  it('is looked at only after authentication: without a token it is UNAUTHORIZED', async () => {
    const r = await fetch(`${server.sluice.url}/api/queries`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'not json' });
    expect(r.status).toBe(401);
    expect(((await r.json()) as any).errorCode).toBe('UNAUTHORIZED');
  });
});

describe('the body limit', () => {
  it('answers PAYLOAD_TOO_LARGE for a JSON body over it under a form Content-Type, with and without Content-Length', async () => {
    const big = JSON.stringify({ sql: `select '${'x'.repeat(10 * 1024)}' as padding` });
    const r = await send(small, '/api/queries', big, 'application/x-www-form-urlencoded');
    expect(r.status).toBe(413);
    expect(r.body.errorCode).toBe('PAYLOAD_TOO_LARGE');
    const chunked = await fetch(`${small.sluice.url}/api/queries`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'x-token': TOKENS.admin },
      body: new ReadableStream({
        start(controller) {
          const bytes = new TextEncoder().encode(big);
          for (let i = 0; i < bytes.length; i += 1024) controller.enqueue(bytes.slice(i, i + 1024));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(chunked.status).toBe(413);
    expect(((await chunked.json()) as any).errorCode).toBe('PAYLOAD_TOO_LARGE');
    const fine = await send(small, '/api/queries', JSON.stringify({ sql: `select '${'x'.repeat(1000)}' as padding` }), null);
    expect(fine.status).toBe(200);
  });
});
