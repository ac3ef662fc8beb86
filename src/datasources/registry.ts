/**
 * The datasources this server reads from: ids, connection URLs (never shown
 * to callers), each one's driver (opened by the kind its URL names, whose
 * module is loaded then: drivers.ts), and a concurrency limit per
 * datasource shared by schema lookups and exports.
 */
import { SluiceError } from '../errors.ts';
import { mayUseDatasource, type Principal } from '../auth/principals.ts';
import { consoleLogger, type Logger } from '../logger.ts';
import type { DatasourceDriver, DatasourceKind, SqlDialect } from './driver.ts';
import { dialectOf, kindOf, loadDrivers, openDriver } from './drivers.ts';
import { scopeFor } from './claim-scope.ts';
import { Semaphore } from './semaphore.ts';

/** How long a health answer is trusted, and how long a health round trip may take. */
const HEALTH_TTL_MS = 5_000;
const HEALTH_TIMEOUT_MS = 2_000;

export interface Datasource {
  id: string;
  description: string;
  /** The embedded database serves one session: everything on it runs one at a time. */
  embedded: boolean;
  kind: DatasourceKind;
  url: string;
  limiter: Semaphore;
  driver: DatasourceDriver;
  /** Setting name -> claim name: the row-level scope each caller's queries run under (empty: none). */
  claimSettings: Readonly<Record<string, string>>;
}

export interface DatasourceSpec {
  id: string;
  url: string;
  /** The kind the operator named; without it the URL's scheme decides. */
  kind?: DatasourceKind | undefined;
  description?: string | undefined;
  embedded?: boolean;
  /** Setting name -> claim name, on PostgreSQL only (start-up refuses them elsewhere). */
  claimSettings?: Record<string, string> | undefined;
  /** The environment variable the entry came from, for start-up errors (SLUICE_DATASOURCES unless said). */
  setting?: string;
}

export class DatasourceRegistry {
  readonly #byId = new Map<string, Datasource>();
  /** Datasources that will be added once they have started, with their kind. */
  readonly #starting = new Map<string, DatasourceKind>();
  readonly #concurrency: number;
  readonly #log: Logger;
  /** The last health answer of each datasource, for availability(). */
  readonly #health = new Map<string, { at: number; reachable: boolean }>();

  /** Opens the registry of `specs`, loading the driver of each kind they name (and no other) first. */
  static async open(specs: DatasourceSpec[], concurrency: number, log: Logger = consoleLogger): Promise<DatasourceRegistry> {
    const kinds = specs.map(specKind);
    await loadDrivers(kinds);
    const registry = new DatasourceRegistry(concurrency, log);
    specs.forEach((spec, i) => registry.#addLoaded(spec, kinds[i]!));
    return registry;
  }

  private constructor(concurrency: number, log: Logger) {
    this.#concurrency = concurrency;
    this.#log = log;
  }

  /** A datasource that will be added once it has started (the embedded one seeds on first start). */
  markStarting(id: string, kind: DatasourceKind): void {
    this.#starting.set(id, kind);
  }

  /** Adds a datasource once it has started, loading its kind's driver when none of that kind was configured. */
  async add(spec: DatasourceSpec): Promise<void> {
    const kind = specKind(spec);
    await loadDrivers([kind]);
    this.#addLoaded(spec, kind);
  }

  #addLoaded(spec: DatasourceSpec, kind: DatasourceKind): void {
    const embedded = spec.embedded === true;
    // Config refuses this already; a query must never run unscoped on an engine that would ignore the settings.
    if (spec.claimSettings !== undefined && (kind !== 'postgres' || embedded)) {
      throw new SluiceError('VALIDATION_ERROR', `${spec.setting ?? 'SLUICE_DATASOURCES'}: datasource "${spec.id}": claimSettings need a PostgreSQL server.`);
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
      claimSettings: { ...spec.claimSettings },
    });
  }

  /**
   * The SQL dialect of a datasource, started or still starting, for code
   * that builds statements before it runs them (a started one's driver
   * knows which server it speaks to); NOT_FOUND for an unknown id.
   */
  dialectOf(id: string): SqlDialect {
    const started = this.#byId.get(id);
    if (started !== undefined) return started.driver.dialect;
    const kind = this.#starting.get(id);
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

  /** Whether the principal may use a datasource of this id, started or still starting. */
  knows(principal: Principal, id: string): boolean {
    return (this.#byId.has(id) || this.#starting.has(id)) && mayUseDatasource(principal, id);
  }

  /**
   * A datasource the principal may use; one it may not is as absent as one
   * that does not exist. On a datasource with row-level scope, a caller
   * without the claims it reads is refused here (FORBIDDEN), before any
   * lookup or query runs on it.
   */
  get(principal: Principal, id: string): Datasource {
    if (this.#starting.has(id) && mayUseDatasource(principal, id)) {
      throw new SluiceError('INTERNAL', `Datasource "${id}" is still starting (the embedded database seeds its sample data on first start); retry in a few seconds.`, { retryable: true }, 503);
    }
    const ds = this.#byId.get(id);
    if (ds === undefined || !mayUseDatasource(principal, id)) {
      throw new SluiceError('NOT_FOUND', `No datasource "${id}" is available to this caller.`, { datasource: id });
    }
    scopeFor(ds, principal);
    return ds;
  }

  /**
   * Which datasources can be reached now, for /readyz: each driver's health
   * round trip, bounded in time and remembered for a few seconds so a load
   * balancer's polling does not become load on the databases. The embedded
   * database is in this process and serves one session: it is not probed.
   */
  async availability(): Promise<{ usable: string[]; down: string[] }> {
    const usable: string[] = [];
    const down: string[] = [];
    await Promise.all(
      this.all().map(async (ds) => {
        ((ds.embedded || (await this.#reachable(ds))) ? usable : down).push(ds.id);
      }),
    );
    return { usable: usable.sort(), down: down.sort() };
  }

  async #reachable(ds: Datasource): Promise<boolean> {
    const known = this.#health.get(ds.id);
    if (known !== undefined && Date.now() - known.at < HEALTH_TTL_MS) return known.reachable;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), HEALTH_TIMEOUT_MS);
      timer.unref?.();
    });
    const reachable = await Promise.race([ds.driver.health().then(() => true, () => false), timeout]);
    clearTimeout(timer);
    this.#health.set(ds.id, { at: Date.now(), reachable });
    return reachable;
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

/** The kind a spec names; a URL of no kind (or not of the kind named) stops start-up naming the variable and the datasource. */
function specKind(spec: DatasourceSpec): DatasourceKind {
  try {
    return kindOf(spec.url, spec.kind);
  } catch (error) {
    throw new SluiceError('VALIDATION_ERROR', `${spec.setting ?? 'SLUICE_DATASOURCES'}: datasource "${spec.id}": ${(error as Error).message}`);
  }
}
