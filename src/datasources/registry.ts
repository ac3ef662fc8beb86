/**
 * The datasources this server reads from: ids, connection URLs (never shown
 * to callers), a small connection pool on the API thread for schema lookups,
 * and a concurrency limit per datasource shared by schema lookups and exports.
 */
import postgres, { type Sql } from 'postgres';
import { SluiceError } from '../errors.ts';
import { mayUseDatasource, type Principal } from '../auth/principals.ts';
import { Semaphore } from './semaphore.ts';

export interface Datasource {
  id: string;
  description: string;
  /** The embedded database serves one session: everything on it runs one at a time. */
  embedded: boolean;
  url: string;
  limiter: Semaphore;
  sql: Sql;
}

export interface DatasourceSpec {
  id: string;
  url: string;
  description?: string | undefined;
  embedded?: boolean;
}

export class DatasourceRegistry {
  readonly #byId = new Map<string, Datasource>();
  readonly #starting = new Set<string>();
  readonly #concurrency: number;

  constructor(specs: DatasourceSpec[], concurrency: number) {
    this.#concurrency = concurrency;
    for (const spec of specs) this.add(spec);
  }

  /** A datasource that will be added once it has started (the embedded one seeds on first start). */
  markStarting(id: string): void {
    this.#starting.add(id);
  }

  add(spec: DatasourceSpec): void {
    const embedded = spec.embedded === true;
    this.#starting.delete(spec.id);
    this.#byId.set(spec.id, {
      id: spec.id,
      description: spec.description ?? (embedded ? 'Embedded PostgreSQL with a sample shop dataset' : ''),
      embedded,
      url: spec.url,
      limiter: new Semaphore(embedded ? 1 : this.#concurrency),
      sql: postgres(spec.url, {
        max: embedded ? 1 : 2,
        fetch_types: false,
        idle_timeout: 30,
        connect_timeout: 10,
        onnotice: () => undefined,
        connection: { application_name: 'sluice-schema' },
      }),
    });
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

  /** Logs a warning for each datasource whose user is a superuser: READ ONLY alone does not stop everything such a user can do. */
  async warnAboutSuperusers(log: (line: string) => void): Promise<void> {
    // The embedded database has one user, a superuser by construction: nothing to configure there.
    for (const ds of this.all().filter((d) => !d.embedded)) {
      try {
        const rows = await ds.limiter.run(() => ds.sql`SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user`);
        if (rows[0]?.rolsuper === true) {
          log(`Warning: datasource "${ds.id}" connects as a superuser. Sluice runs every query READ ONLY and refuses functions that reach outside the database, but a role with only SELECT rights is the safer boundary.`);
        }
      } catch (error) {
        log(`Warning: datasource "${ds.id}" is not reachable yet (${(error as Error).message}).`);
      }
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.all().map((d) => d.sql.end({ timeout: 2 })));
  }
}
