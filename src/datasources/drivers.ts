/**
 * Every datasource kind Sluice speaks, by URL scheme: where a new engine is
 * added (its folder, its scheme here, its export half in export-drivers.ts).
 *
 * A kind's driver is loaded (a dynamic import) only when a datasource of
 * that kind is configured: its parser and client library are tens of
 * megabytes of resident memory (the MySQL grammar alone about 40 MB), which
 * a server reading only PostgreSQL should not carry. The dialects are small
 * and stay loaded, so a dialect is known before its driver is.
 */
import { SluiceError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { DATASOURCE_SCHEMES } from '../vocabulary.ts';
import type { DatasourceDriver, DatasourceKind, SqlDialect } from './driver.ts';
import { duckdbDialect } from './files/duckdb-dialect.ts';
import { mysqlDialect } from './mysql/mysql-dialect.ts';
import { pgDialect } from './postgres/pg-dialect.ts';
import { sqliteDialect } from './sqlite/sqlite-dialect.ts';

export interface DriverSpec {
  id: string;
  url: string;
  embedded: boolean;
}

type OpenDriver = (spec: DriverSpec, log: Logger) => DatasourceDriver;

interface Kind {
  schemes: readonly string[];
  dialect: SqlDialect;
  /** Imports the kind's driver; literal paths, so the build compiles each module and keeps the import. */
  load(): Promise<OpenDriver>;
}

const KINDS: Record<DatasourceKind, Kind> = {
  postgres: {
    schemes: DATASOURCE_SCHEMES.postgres,
    dialect: pgDialect,
    load: async () => (await import('./postgres/postgres-driver.ts')).openPostgresDriver,
  },
  mysql: {
    schemes: DATASOURCE_SCHEMES.mysql,
    dialect: mysqlDialect('mysql'),
    load: async () => (await import('./mysql/mysql-driver.ts')).openMysqlDriver,
  },
  sqlite: { schemes: DATASOURCE_SCHEMES.sqlite, dialect: sqliteDialect, load: async () => (await import('./sqlite/sqlite-driver.ts')).openSqliteDriver },
  files: { schemes: DATASOURCE_SCHEMES.files, dialect: duckdbDialect, load: async () => (await import('./files/files-driver.ts')).openFilesDriver },
};

/** The drivers loaded so far, by kind. */
const loaded = new Map<DatasourceKind, OpenDriver>();

/** The kind a datasource URL names by its scheme; with `named`, the URL's scheme must be one of that kind's. */
export function kindOf(url: string, named?: DatasourceKind): DatasourceKind {
  let scheme: string;
  try {
    scheme = new URL(url).protocol;
  } catch {
    throw new SluiceError('VALIDATION_ERROR', 'the URL is not a URL.');
  }
  const schemes = (kinds: Kind[]) => kinds.flatMap((k) => k.schemes.map((s) => `${s}//`)).join(' or ');
  if (named !== undefined) {
    if (KINDS[named].schemes.includes(scheme)) return named;
    throw new SluiceError('VALIDATION_ERROR', `kind "${named}" reads URLs starting with ${schemes([KINDS[named]])}, not "${scheme}//".`);
  }
  for (const [kind, spec] of Object.entries(KINDS) as [DatasourceKind, Kind][]) if (spec.schemes.includes(scheme)) return kind;
  throw new SluiceError('VALIDATION_ERROR', `the URL starts with "${scheme}//", which names no datasource kind; use ${schemes(Object.values(KINDS))}.`);
}

/** Loads the drivers of `kinds` (each once per process), so openDriver can open their datasources. */
export async function loadDrivers(kinds: Iterable<DatasourceKind>): Promise<void> {
  await Promise.all(
    [...new Set(kinds)].filter((kind) => !loaded.has(kind)).map(async (kind) => void loaded.set(kind, await KINDS[kind].load())),
  );
}

/** Whether the kind's driver module is in this process (for tests of what start-up loads). */
export function driverLoaded(kind: DatasourceKind): boolean {
  return loaded.has(kind);
}

/** Opens a datasource's driver; its kind's driver must have been loaded (loadDrivers). */
export function openDriver(kind: DatasourceKind, spec: DriverSpec, log: Logger): DatasourceDriver {
  const open = loaded.get(kind);
  if (open === undefined) throw new SluiceError('INTERNAL', `The driver of kind "${kind}" was not loaded before datasource "${spec.id}" was opened.`);
  return open(spec, log);
}

export function dialectOf(kind: DatasourceKind): SqlDialect {
  return KINDS[kind].dialect;
}
