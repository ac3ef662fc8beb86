/**
 * Every datasource kind Sluice speaks, by URL scheme: where a new engine is
 * added (its folder, its scheme here, its export half in export-drivers.ts).
 */
import { SluiceError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { DatasourceDriver, DatasourceKind, SqlDialect } from './driver.ts';
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
  schemes: string[];
  dialect: SqlDialect;
  open(spec: DriverSpec, log: Logger): DatasourceDriver;
}

const KINDS: Record<DatasourceKind, Kind> = {
  postgres: { schemes: ['postgres:', 'postgresql:'], dialect: pgDialect, open: openPostgresDriver },
  sqlite: { schemes: ['sqlite:'], dialect: sqliteDialect, open: openSqliteDriver },
};

/** The kind a datasource URL names by its scheme. */
export function kindOf(url: string): DatasourceKind {
  let scheme: string;
  try {
    scheme = new URL(url).protocol;
  } catch {
    throw new SluiceError('VALIDATION_ERROR', 'A datasource URL is not a URL.');
  }
  for (const [kind, spec] of Object.entries(KINDS) as [DatasourceKind, Kind][]) if (spec.schemes.includes(scheme)) return kind;
  const known = Object.values(KINDS).flatMap((k) => k.schemes.map((s) => `${s}//`));
  throw new SluiceError('VALIDATION_ERROR', `A datasource URL starts with "${scheme}//", which names no datasource kind; use ${known.join(' or ')}.`);
}

export function openDriver(kind: DatasourceKind, spec: DriverSpec, log: Logger): DatasourceDriver {
  return KINDS[kind].open(spec, log);
}

export function dialectOf(kind: DatasourceKind): SqlDialect {
  return KINDS[kind].dialect;
}
