/**
 * Every datasource kind Sluice speaks, by URL scheme: where a new engine is
 * added (its folder, its scheme here, its export half in export-drivers.ts).
 */
import { SluiceError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { DATASOURCE_SCHEMES } from '../vocabulary.ts';
import type { DatasourceDriver, DatasourceKind, SqlDialect } from './driver.ts';
import { duckdbDialect } from './files/duckdb-dialect.ts';
import { openFilesDriver } from './files/files-driver.ts';
import { mysqlDialect } from './mysql/mysql-dialect.ts';
import { openMysqlDriver } from './mysql/mysql-driver.ts';
import { pgDialect } from './postgres/pg-dialect.ts';
import { openPostgresDriver } from './postgres/postgres-driver.ts';
import { sqliteDialect } from './sqlite/sqlite-dialect.ts';
import { openSqliteDriver } from './sqlite/sqlite-driver.ts';

export interface DriverSpec {
  id: string;
  url: string;
  embedded: boolean;
}

interface Kind {
  schemes: readonly string[];
  dialect: SqlDialect;
  open(spec: DriverSpec, log: Logger): DatasourceDriver;
}

const KINDS: Record<DatasourceKind, Kind> = {
  postgres: { schemes: DATASOURCE_SCHEMES.postgres, dialect: pgDialect, open: openPostgresDriver },
  mysql: { schemes: DATASOURCE_SCHEMES.mysql, dialect: mysqlDialect('mysql'), open: openMysqlDriver },
  sqlite: { schemes: DATASOURCE_SCHEMES.sqlite, dialect: sqliteDialect, open: openSqliteDriver },
  files: { schemes: DATASOURCE_SCHEMES.files, dialect: duckdbDialect, open: openFilesDriver },
};

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

export function openDriver(kind: DatasourceKind, spec: DriverSpec, log: Logger): DatasourceDriver {
  return KINDS[kind].open(spec, log);
}

export function dialectOf(kind: DatasourceKind): SqlDialect {
  return KINDS[kind].dialect;
}
