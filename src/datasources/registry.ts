/**
 * The datasources this server reads from: ids, connection URLs (never shown
 * to callers), each one's driver (opened by the kind its URL names), and a
 * concurrency limit per datasource shared by schema lookups and exports.
 */
import { SluiceError } from '../errors.ts';
import { mayUseDatasource, type Principal } from '../auth/principals.ts';
import { consoleLogger, type Logger } from '../logger.ts';
import type { DatasourceDriver, DatasourceKind, SqlDialect } from './driver.ts';
import { dialectOf, kindOf, openDriver } from './drivers.ts';
import { Semaphore } from './semaphore.ts';

export interface Datasource {
  id: string;
  description: string;
  /** The embedded database serves one session: everything on it runs one at a time. */
  embedded: boolean;
  kind: DatasourceKind;
  url: string;
  limiter: Semaphore;
  driver: DatasourceDriver;
}

export interface DatasourceSpec {
  id: string;
  url: string;
  description?: string | undefined;
  embedded?: boolean;
}

export class DatasourceRegistry {
  readonly #byId = new Map<string, Datasource>();
  /** Datasources that will be added once they have started, with their kind. */
  readonly #starting = new Map<string, DatasourceKind>();
  readonly #concurrency: number;
  readonly #log: Logger;

  constructor(specs: DatasourceSpec[], concurrency: number, log: Logger = consoleLogger) {
    this.#concurrency = concurrency;
    this.#log = log;
    for (const spec of specs) this.add(spec);
  }

  /** A datasource that will be added once it has started (the embedded one seeds on first start). */
  markStarting(id: string, kind: DatasourceKind): void {
    this.#starting.set(id, kind);
  }

  add(spec: DatasourceSpec): void {
    const embedded = spec.embedded === true;
    let kind: DatasourceKind;
    try {
      kind = kindOf(spec.url);
    } catch (error) {
      throw new SluiceError('VALIDATION_ERROR', `Datasource "${spec.id}": ${(error as Error).message}`);
    }
    const driver = openDriver(kind, { id: spec.id, url: spec.url, embedded }, this.#log);
    this.#starting.delete(spec.id);
    this.#byId.set(spec.id, {
      id: spec.id,
      description: spec.description ?? (embedded ? 'Embedded PostgreSQL with a sample shop dataset' : ''),
      embedded,
      kind,
      url: spec.url,
      limiter: new Semaphore(driver.capabilities.concurrentStatements ? this.#concurrency : 1),
      driver,
    });
  }

  /**
   * The SQL dialect of a datasource, started or still starting, for code
   * that builds statements before it runs them; NOT_FOUND for an unknown id.
   */
  dialectOf(id: string): SqlDialect {
    const kind = this.#byId.get(id)?.kind ?? this.#starting.get(id);
    if (kind === undefined) throw new SluiceError('NOT_FOUND', `No datasource "${id}" is available to this caller.`, { datasource: id });
    return dialectOf(kind);
  }

  /** The connection URL of a datasource, for operators and tests; never shown to API callers. */
  urlOf(id: string): string | undefined {
    return this.#byId.get(id)?.url;
  }

  get ready(): boolean {
    return this.#starting.size === 0;
  }

  all(): Datasource[] {
    return [...this.#byId.values()];
  }

  visibleTo(principal: Principal): Datasource[] {
    return this.all().filter((d) => mayUseDatasource(principal, d.id));
  }

  /** A datasource the principal may use; one it may not is as absent as one that does not exist. */
  get(principal: Principal, id: string): Datasource {
    if (this.#starting.has(id) && mayUseDatasource(principal, id)) {
      throw new SluiceError('INTERNAL', `Datasource "${id}" is still starting (the embedded database seeds its sample data on first start); retry in a few seconds.`, { retryable: true }, 503);
    }
    const ds = this.#byId.get(id);
    if (ds === undefined || !mayUseDatasource(principal, id)) {
      throw new SluiceError('NOT_FOUND', `No datasource "${id}" is available to this caller.`, { datasource: id });
    }
    return ds;
  }

  /** Logs what each driver says the operator should know (a superuser connection, a server not reachable yet). */
  async logStartupWarnings(log: (line: string) => void): Promise<void> {
    for (const ds of this.all()) {
      for (const line of await ds.limiter.run(() => ds.driver.startupWarnings())) log(line);
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.all().map((d) => d.driver.close()));
  }
}
