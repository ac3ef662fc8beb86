/**
 * The checked-in OpenAPI document (openapi/openapi.json) and operation table
 * (openapi/client/operations.ts) are the ones the server serves, and that
 * document covers every /api route with its error responses and every error
 * code of the contract, names every operation with a unique operationId and
 * declares every tag it uses.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { fetchServedDocument, formatDocument, OPENAPI_FILE, OPERATIONS_FILE, renderOperationsModule, type ServedDocument } from '../../scripts/openapi-document.ts';
import { ERROR_CODES } from '../../src/errors.ts';

type Operation = { operationId?: string; tags?: string[]; responses?: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }> };
type Paths = Record<string, Record<string, Operation>>;

const ERROR_ENVELOPE_REF = '#/components/schemas/ErrorEnvelope';
/** Statuses every /api route can answer: bad request, no token, wrong role, body too large, rate limited, internal. */
const BASELINE_ERROR_STATUSES = ['400', '401', '403', '413', '429', '500'];
const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

let served: ServedDocument;
beforeAll(async () => {
  served = await fetchServedDocument();
});

/** Hono's `/api/artifacts/:id/read` is OpenAPI's `/api/artifacts/{id}/read`. */
const toOpenApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** Every route the app registers (deduplicated: validators register a route once more each), OpenAPI-style. */
function registeredRoutes(): { method: string; path: string }[] {
  const seen = new Map<string, { method: string; path: string }>();
  for (const r of served.routes) {
    const route = { method: r.method.toLowerCase(), path: toOpenApiPath(r.path) };
    seen.set(`${route.method} ${route.path}`, route);
  }
  return [...seen.values()];
}

const apiRoutes = () => registeredRoutes().filter((r) => r.path.startsWith('/api/'));

describe('openapi/openapi.json', () => {
  it('is exactly what GET /openapi.json serves (if not: run npm run openapi)', () => {
    let checkedIn: string;
    try {
      checkedIn = readFileSync(OPENAPI_FILE, 'utf8');
    } catch {
      throw new Error('openapi/openapi.json is missing: run npm run openapi');
    }
    const expected = formatDocument(served.document);
    if (checkedIn !== expected) {
      // The diff below shows what changed; the fix is always the same.
      let parsed: unknown;
      try {
        parsed = JSON.parse(checkedIn);
      } catch {
        throw new Error('openapi/openapi.json is not valid JSON: run npm run openapi');
      }
      expect(parsed, 'openapi/openapi.json differs from what the server serves: run npm run openapi').toEqual(served.document);
      expect(checkedIn, 'openapi/openapi.json is not formatted as npm run openapi writes it: run npm run openapi').toBe(expected);
    }
  });

  it('has the operation table the client is built from (if not: run npm run openapi)', () => {
    expect(readFileSync(OPERATIONS_FILE, 'utf8'), 'openapi/client/operations.ts is stale: run npm run openapi').toBe(renderOperationsModule(served.document));
  });

  it('is OpenAPI 3.1', () => {
    expect(served.document.openapi).toBe('3.1.0');
  });
});

describe('the served OpenAPI document', () => {
  it('documents every /api route the app registers, and nothing it does not serve', () => {
    const paths = served.document.paths as Paths;
    const routes = apiRoutes();
    expect(routes.length).toBeGreaterThan(0);
    const missing = routes.filter((r) => paths[r.path]?.[r.method] === undefined).map((r) => `${r.method.toUpperCase()} ${r.path}`);
    expect(missing, 'routes the app serves that the document lacks').toEqual([]);
    const registered = new Set(registeredRoutes().map((r) => `${r.method} ${r.path}`));
    const documented = Object.entries(paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method} ${path}`));
    expect(documented.filter((d) => !registered.has(d)), 'documented operations the app does not serve').toEqual([]);
  });

  it('gives every /api operation its error responses, each an ErrorEnvelope', () => {
    const paths = served.document.paths as Paths;
    for (const { method, path } of apiRoutes()) {
      const responses = paths[path]?.[method]?.responses ?? {};
      const where = `${method.toUpperCase()} ${path}`;
      for (const status of BASELINE_ERROR_STATUSES) {
        expect(responses[status], `${where} documents no ${status} response`).toBeDefined();
      }
      for (const [status, response] of Object.entries(responses)) {
        if (Number(status) < 400) continue;
        expect(response.content?.['application/json']?.schema?.$ref, `${where} ${status} is not an ErrorEnvelope`).toBe(ERROR_ENVELOPE_REF);
      }
    }
  });

  it('lists every error code of src/errors.ts in the ErrorEnvelope schema', () => {
    const schemas = (served.document.components as { schemas: Record<string, { properties?: Record<string, { enum?: string[] }> }> }).schemas;
    const codes = schemas.ErrorEnvelope?.properties?.errorCode?.enum ?? [];
    for (const code of ERROR_CODES) expect(codes, `ErrorEnvelope.errorCode lacks ${code}`).toContain(code);
    expect([...codes].sort()).toEqual([...ERROR_CODES].sort());
  });
});

/** Every operation of the document with where it is, whatever it lacks. */
function allOperations(): { where: string; operation: Operation }[] {
  return Object.entries(served.document.paths as Paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.has(method))
      .map(([method, operation]) => ({ where: `${method.toUpperCase()} ${path}`, operation })),
  );
}

describe('operation names and tags', () => {
  it('gives every operation a unique camelCase operationId', () => {
    const operations = allOperations();
    expect(operations.length).toBeGreaterThan(0);
    expect(operations.filter((o) => o.operation.operationId === undefined).map((o) => o.where), 'operations without an operationId').toEqual([]);
    const ids = operations.map((o) => o.operation.operationId!);
    expect(ids.filter((id) => !/^[a-z][A-Za-z0-9]*$/.test(id)), 'operationIds that are not camelCase').toEqual([]);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i), 'operationIds used twice').toEqual([]);
  });

  it('declares, with a description, every tag an operation uses, and uses every tag it declares', () => {
    const declared = (served.document.tags ?? []) as { name: string; description?: string }[];
    const names = declared.map((t) => t.name);
    const used = new Set(allOperations().flatMap((o) => o.operation.tags ?? []));
    expect(allOperations().filter((o) => (o.operation.tags ?? []).length === 0).map((o) => o.where), 'operations without a tag').toEqual([]);
    expect([...used].filter((t) => !names.includes(t)), 'tags used but not declared').toEqual([]);
    expect(names.filter((t) => !used.has(t)), 'tags declared but not used').toEqual([]);
    expect(declared.filter((t) => !t.description).map((t) => t.name), 'tags without a description').toEqual([]);
  });
});
