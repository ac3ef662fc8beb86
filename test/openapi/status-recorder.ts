/**
 * Records what each operation of the OpenAPI document really answered
 * (status and error code) while a test drives it, and checks those answers
 * against what the document declares for the operation: the status must be
 * one of its responses, and an error's code must be named in that
 * response's description (errorResponses writes each code in backticks).
 */
import { operationsOf, type OperationEntry } from '../../scripts/openapi-document.ts';
import type { TestServer } from '../helpers/server.ts';

export interface Answer {
  operationId: string;
  status: number;
  errorCode: string | null;
}

type Responses = Record<string, { description?: string }>;
type Paths = Record<string, Record<string, { operationId?: string; responses?: Responses }>>;

export interface CallInit {
  path?: Record<string, string>;
  query?: string;
  body?: unknown;
  rawBody?: string | Uint8Array<ArrayBuffer>;
  headers?: Record<string, string>;
  token?: string | null;
}

/** The responses an operation declares, by operationId. */
function declaredResponses(document: Record<string, unknown>): Map<string, Responses> {
  const byId = new Map<string, Responses>();
  for (const item of Object.values(document.paths as Paths)) {
    for (const operation of Object.values(item)) {
      if (operation.operationId !== undefined) byId.set(operation.operationId, operation.responses ?? {});
    }
  }
  return byId;
}

/** One line per answer the document does not declare; none when every answer is declared. */
export function undeclaredAnswers(document: Record<string, unknown>, answers: Iterable<Answer>): string[] {
  const declared = declaredResponses(document);
  const problems = new Set<string>();
  for (const { operationId, status, errorCode } of answers) {
    const responses = declared.get(operationId);
    if (responses === undefined) {
      problems.add(`${operationId}: not in the document`);
      continue;
    }
    const response = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
    if (response === undefined) problems.add(`${operationId} answered ${status}, which it does not declare`);
    else if (errorCode !== null && !(response.description ?? '').includes(`\`${errorCode}\``)) {
      problems.add(`${operationId} answered ${status} ${errorCode}, a code its ${status} response does not name`);
    }
  }
  return [...problems].sort();
}

/**
 * Whether a request to `url` can reach the route of `template` at all: an
 * empty id, or "." and ".." (which URL parsing folds away), make a path no
 * route matches, and that 404 is the app's, not the operation's.
 */
function reachesRoute(template: string, url: string): boolean {
  const pattern = new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`);
  return pattern.test(new URL(url, 'http://sluice.test').pathname);
}

/** Calls operations of a server by operationId, recording every answer that reached the operation's route. */
export class StatusRecorder {
  readonly answers: Answer[] = [];
  readonly #operations: Map<string, OperationEntry>;

  constructor(document: Record<string, unknown>) {
    this.#operations = new Map(operationsOf(document).map((o) => [o.operationId, o]));
  }

  get operationIds(): string[] {
    return [...this.#operations.keys()];
  }

  operation(operationId: string): OperationEntry {
    const operation = this.#operations.get(operationId);
    if (operation === undefined) throw new Error(`No operation ${operationId} in the document.`);
    return operation;
  }

  async call(server: TestServer, operationId: string, init: CallInit = {}): Promise<{ status: number; body: any; headers: Headers }> {
    const { method, path } = this.operation(operationId);
    const filled = path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(init.path?.[name] ?? 'none'));
    const url = init.query === undefined ? filled : `${filled}?${init.query}`;
    const response = await server.request(url, {
      method,
      ...(init.body === undefined ? {} : { body: init.body }),
      ...(init.rawBody === undefined ? {} : { rawBody: init.rawBody }),
      ...(init.headers === undefined ? {} : { headers: init.headers }),
      ...(init.token === undefined ? {} : { token: init.token }),
    });
    const body = response.body as { success?: unknown; errorCode?: unknown } | string;
    const errorCode = typeof body === 'object' && body !== null && body.success === false && typeof body.errorCode === 'string' ? body.errorCode : null;
    if (reachesRoute(path, filled)) this.answers.push({ operationId, status: response.status, errorCode });
    return response;
  }

  /** The statuses seen for one operation. */
  statuses(operationId: string): Set<number> {
    return new Set(this.answers.filter((a) => a.operationId === operationId).map((a) => a.status));
  }
}
