/**
 * The one tool registry and what derives from it, without a server: which
 * tools each surface and role gets, the model's function schemas, argument
 * validation, the size budget, and the agent's artifact scope (checked
 * against a store that records every call, so "refused without reading"
 * is observed, not assumed).
 */
import { describe, expect, it } from 'vitest';
import type { ArtifactStore } from '../../src/artifacts/types.ts';
import type { Principal } from '../../src/auth/principals.ts';
import { quietLogger } from '../../src/logger.ts';
import { boundResult } from '../../src/ai/tools/bound-result.ts';
import { functionTool, mcpInputSchema, resultSchema, toolsFor, TOOLS } from '../../src/ai/tools/registry.ts';
import { fence, runTool } from '../../src/ai/tools/run-tool.ts';
import type { ToolContext } from '../../src/ai/tools/tool-types.ts';
import { FILTER_OPS } from '../../src/vocabulary.ts';

const analyst: Principal = { id: 'ana', role: 'analyst', roles: ['analyst'], datasources: ['*'], auth: 'token' };
const reader: Principal = { id: 'rea', role: 'reader', roles: ['reader'], datasources: ['*'], auth: 'token' };
const names = (surface: 'agent' | 'mcp', who: Principal, semantic: boolean) => toolsFor(surface, who, semantic).map((t) => t.name);

function recordingStore(sessionOf: Record<string, string>): { store: ArtifactStore; calls: string[] } {
  const calls: string[] = [];
  const store = {
    get: (_principal: string, id: string) => {
      calls.push(`get ${id}`);
      return { id, sessionId: sessionOf[id] ?? 'default' };
    },
    read: async (_principal: string, id: string) => {
      calls.push(`read ${id}`);
      return { columns: [{ name: 'n', type: 'int4' }], rows: [[1]], more: false };
    },
    aggregate: async (_principal: string, id: string) => {
      calls.push(`aggregate ${id}`);
      return { columns: [{ name: 'count', type: 'int8' }], rows: [['1']], more: false };
    },
  };
  return { store: store as unknown as ArtifactStore, calls };
}

function agentContext(store: ArtifactStore, sharedSession: string | null, artifacts: string[] = []): ToolContext {
  return { principal: analyst, store, artifacts, artifactScope: { sharedSession }, discoveredFields: new Set(), semantic: null, queries: { previewCellChars: 10_000 }, deadline: Date.now() + 60_000 } as unknown as ToolContext;
}

const run = (name: string, args: unknown, ctx: ToolContext, maxChars = 20_000) =>
  runTool(name, typeof args === 'string' ? args : JSON.stringify(args), ctx, { tools: toolsFor('agent', analyst, true), maxChars, log: quietLogger });
const unfence = (text: string) => JSON.parse(/^<tool_output untrusted="true">([\s\S]*)<\/tool_output>$/.exec(text)![1]!);

describe('the tool registry', () => {
  it('offers both surfaces the same tools but list_datasources, each filtered by role and by the semantic model', () => {
    const agent = names('agent', analyst, true);
    expect(agent).toEqual(['list_tables', 'describe_table', 'run_select', 'read_artifact', 'aggregate_artifact', 'list_explores', 'find_fields', 'run_query', 'generate_visualization']);
    expect(names('mcp', analyst, true)).toEqual(['list_datasources', ...agent]);
    expect(names('agent', analyst, false)).toEqual(['list_tables', 'describe_table', 'run_select', 'read_artifact', 'aggregate_artifact']);
    expect(names('mcp', reader, true)).toEqual(['list_datasources', 'list_tables', 'describe_table', 'run_select', 'read_artifact', 'aggregate_artifact']);
  });

  it('derives the model\u2019s function schema from the zod arguments: strict, vocabulary enums, defaults optional', () => {
    const read = functionTool(TOOLS.find((t) => t.name === 'read_artifact')!);
    const parameters = read.function.parameters as any;
    expect(parameters.$schema).toBeUndefined();
    expect(parameters.additionalProperties).toBe(false);
    expect(parameters.required).toEqual(['artifact_id']);
    expect(parameters.properties.filters.items.properties.op.enum).toEqual([...FILTER_OPS]);
    expect(parameters.properties.limit).toMatchObject({ maximum: 50, default: 50 });
  });

  it('gives MCP a datasource argument only where the tool reads one, and every list tool the size note', () => {
    const tool = (name: string) => TOOLS.find((t) => t.name === name)!;
    expect(Object.keys(mcpInputSchema(tool('run_select')).shape)).toEqual(['sql', 'keep_full_result', 'datasource']);
    expect(Object.keys(mcpInputSchema(tool('read_artifact')).shape)).not.toContain('datasource');
    expect(Object.keys(resultSchema(tool('run_select')).shape)).toContain('truncatedForSize');
    expect(Object.keys(resultSchema(tool('generate_visualization')).shape)).not.toContain('truncatedForSize');
    // Strict: a result with a field the schema does not name is refused, as MCP clients refuse it.
    expect(resultSchema(tool('read_artifact')).safeParse({ columns: [], rows: [], nextCursor: null, firstRow: 1, offset: 0 }).success).toBe(false);
  });
});

describe('argument validation', () => {
  const { store } = recordingStore({});
  it.each([
    ['a wrong type', 'read_artifact', { artifact_id: 7 }, 'artifact_id:'],
    ['a value out of range', 'read_artifact', { artifact_id: 'art_1', limit: 51 }, 'limit:'],
    ['an unknown operator', 'read_artifact', { artifact_id: 'art_1', filters: [{ column: 'n', op: 'drop' }] }, 'filters.0.op:'],
    ['an extra argument', 'run_select', { sql: 'select 1', write: true }, '(arguments): Unrecognized key: "write"'],
    ['no metrics', 'aggregate_artifact', { artifact_id: 'art_1', metrics: [] }, 'metrics:'],
    ['a bad metric function', 'aggregate_artifact', { artifact_id: 'art_1', metrics: [{ fn: 'median' }] }, 'metrics.0.fn:'],
    ['a string, not an object', 'list_tables', '"public"', '(arguments):'],
  ])('answers %s with BAD_ARGUMENTS naming where', async (_what, tool, args, where) => {
    const outcome = await run(tool, args, agentContext(store, null));
    expect(outcome.failure).toBe('bad_arguments');
    const error = unfence(outcome.output).error;
    expect(error.code).toBe('BAD_ARGUMENTS');
    expect(error.message).toContain(where);
  });
});

describe('the agent\u2019s artifact scope', () => {
  it('refuses an artifact outside its tool chain with NOT_FOUND before reading anything of it', async () => {
    const { store, calls } = recordingStore({ art_other: 'elsewhere' });
    for (const tool of ['read_artifact', 'aggregate_artifact']) {
      const outcome = await run(tool, { artifact_id: 'art_other', metrics: tool === 'read_artifact' ? undefined : [{ fn: 'count' }] }, agentContext(store, null, ['art_mine']));
      expect(unfence(outcome.output).error.code).toBe('NOT_FOUND');
    }
    expect(calls).toEqual([]);
    // With a shared session, only its metadata is looked at; its rows are never read.
    const shared = await run('read_artifact', { artifact_id: 'art_other' }, agentContext(store, 'mine'));
    expect(unfence(shared.output).error.code).toBe('NOT_FOUND');
    expect(calls).toEqual(['get art_other']);
  });

  it('reads artifacts its own calls produced, and those of the session the request names', async () => {
    const { store, calls } = recordingStore({ art_shared: 'conversation-1' });
    await run('aggregate_artifact', { artifact_id: 'art_mine', metrics: [{ fn: 'count' }] }, agentContext(store, null, ['art_mine']));
    await run('aggregate_artifact', { artifact_id: 'art_shared', metrics: [{ fn: 'count' }] }, agentContext(store, 'conversation-1'));
    expect(calls).toEqual(['aggregate art_mine', 'get art_shared', 'aggregate art_shared']);
  });
});

describe('boundResult', () => {
  const rows = Array.from({ length: 50 }, (_, i) => [i, 'v'.repeat(4000)]);
  const result = { columns: [{ name: 'i', type: 'int4' }], rows, artifact: { decision: 'CREATED', id: 'art_keep' } };

  it('drops rows from the end until the fenced text fits, says how many, keeps the artifact', () => {
    const bounded = boundResult(result, 'rows', 20_000, (r) => fence(r).length);
    expect(fence(bounded).length).toBeLessThanOrEqual(20_000);
    expect(bounded.rows).toEqual(rows.slice(0, bounded.rows.length));
    expect(bounded.truncatedForSize).toMatchObject({ list: 'rows', shown: bounded.rows.length, dropped: 50 - bounded.rows.length });
    expect(bounded.artifact.id).toBe('art_keep');
    // The largest prefix: one more row would not fit.
    expect(fence({ ...bounded, rows: rows.slice(0, bounded.rows.length + 1) }).length).toBeGreaterThan(20_000);
  });

  it('leaves a result that fits untouched, and one without a list as it is', () => {
    expect(boundResult(result, 'rows', 1_000_000, (r) => JSON.stringify(r).length)).toBe(result);
    expect(boundResult(result, null, 100, (r) => JSON.stringify(r).length)).toBe(result);
  });
});
