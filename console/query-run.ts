/**
 * Running one query from the console: submit with a short wait, so a long
 * query comes back at once as RUNNING with its progress, then poll it (each
 * poll waits on the server up to a second) until it ends or is cancelled.
 * Progress and the end arrive through callbacks; `cancel` asks the API to
 * cancel and reports the cancelled state it answers with.
 */
import { unwrap, type QueryData, type SluiceClient } from './api.ts';

export interface QueryOutcome {
  summary: string;
  data: QueryData;
}

export interface QueryRunHandlers {
  onProgress(outcome: QueryOutcome): void;
  onEnd(outcome: QueryOutcome): void;
  onError(error: unknown): void;
}

const FIRST_WAIT_MS = 400;
const POLL_WAIT_MS = 1000;

export class QueryRun {
  #stopped = false;
  #cancelWanted = false;
  #queryId: string | null = null;
  readonly #client: SluiceClient;
  readonly #handlers: QueryRunHandlers;

  constructor(client: SluiceClient, handlers: QueryRunHandlers) {
    this.#client = client;
    this.#handlers = handlers;
  }

  async start(body: { sql: string; datasource: string }): Promise<void> {
    try {
      let answer: QueryOutcome = await unwrap(this.#client.submitQuery({ body: { ...body, waitMs: FIRST_WAIT_MS } }));
      this.#queryId = answer.data.queryId;
      // Cancel pressed before the query had an id: it is sent now.
      if (this.#cancelWanted) return await this.#sendCancel(answer.data.queryId);
      while (answer.data.state === 'RUNNING' && !this.#cancelWanted) {
        this.#handlers.onProgress(answer);
        answer = await unwrap(this.#client.getQuery({ params: { path: { id: answer.data.queryId }, query: { waitMs: POLL_WAIT_MS } } }));
      }
      // Once a cancel is under way, its answer is the end, not the poll's.
      if (!this.#cancelWanted) this.#finish(() => this.#handlers.onEnd(answer));
    } catch (error) {
      if (!this.#cancelWanted) this.#finish(() => this.#handlers.onError(error));
    }
  }

  async cancel(): Promise<void> {
    if (this.#stopped || this.#cancelWanted) return;
    this.#cancelWanted = true;
    if (this.#queryId !== null) await this.#sendCancel(this.#queryId);
  }

  async #sendCancel(id: string): Promise<void> {
    try {
      const answer = await unwrap(this.#client.cancelQuery({ params: { path: { id } } }));
      this.#finish(() => this.#handlers.onEnd(answer));
    } catch (error) {
      this.#finish(() => this.#handlers.onError(error));
    }
  }

  /** Reports the end once. */
  #finish(report: () => void): void {
    if (this.#stopped) return;
    this.#stopped = true;
    report();
  }
}
