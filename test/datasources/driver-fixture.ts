/**
 * What an engine's test file hands the driver contract suite
 * (driver-contract.ts): the driver's two halves and a privileged
 * connection (`DriverUnderTest`), and the engine's fixture as data
 * (`DriverFixture`): the statements that build its tables, the statements
 * each case runs, in the engine's dialect, and what the contract says
 * comes back. The suite writes no engine's SQL: what it composes itself
 * it composes with the driver's dialect, around plain SELECTs every engine
 * reads. A MySQL, SQLite or files engine proves itself with a fixture and
 * a setup of its own; the suite does not change.
 */
import type { ErrorCode } from '../../src/errors.ts';
import type { DatasourceDriver, ExportDriver, TableDetail } from '../../src/datasources/driver.ts';
import type { StatementKind } from '../../src/worker/export-types.ts';
import type { TableKind } from '../../src/vocabulary.ts';

export interface DriverUnderTest {
  /** The API-thread half, opened as the registry opens it. */
  driver: DatasourceDriver;
  /** The worker half, as a query worker creates it. */
  exports: ExportDriver;
  /** The datasource URL both halves are given. */
  url: string;
  /** Runs a setup, teardown or inspection statement with a privileged connection; its rows as objects. */
  admin(sql: string): Promise<Record<string, unknown>[]>;
  /** What the engine's own client library (the one the export half uses) throws for `sql`, unmapped. */
  engineError(sql: string): Promise<unknown>;
  /** A driver of the same kind on a URL where nothing answers, for the health case; absent when the engine has no such place. */
  openUnreachable?: () => DatasourceDriver;
  close(): Promise<void>;
}

/** A read statement and its result as a caller sees it, encoded by the contract's value rules. */
export interface ValueCase {
  /** What the case shows, for the test title. */
  label: string;
  sql: string;
  /** The result's columns: name, and the type as the engine names it. */
  columns: { name: string; type: string }[];
  /** Every row, in order, each value in the contract's JSON encoding. */
  rows: unknown[][];
}

/** Cases an engine may list as known bugs. */
export interface DriverFixture {
  /** Statements that build the fixture's tables and rows, run in order before the suite. */
  create: string[];
  /** Statements that remove all of it; run before `create` (a run that died leaves it behind) and after the suite. */
  drop: string[];
  /** Bound parameters in the engine's dialect: `sql` wrapped so it takes one parameter and returns the same rows. */
  bindOne(sql: string): { sql: string; params: unknown[] };
  /** Every type the engine declares, a case at a time. */
  valueCases: ValueCase[];
  /** One text column named v, four rows in this order: '', NULL, NULL, ''. */
  nullAndEmpty: string;
  /** One text column, one row, a value of a few MB. */
  wide: { sql: string; value: string };
  /**
   * Two columns, an integer `n` and the text `label` (`row <n>`), for n = 1..rows
   * in order; rows at least 10,000, so the dialect's text matches find several.
   */
  numbers: { sql: string; rows: number };
  statements: {
    /** Statements the read-only check must refuse with READ_ONLY_VIOLATION. */
    refused: string[];
    /** Reads the check must pass; `text` and `offset` when the case shows how the statement is cut from what was sent. */
    accepted: { sql: string; kind: StatementKind; paramCount: number; text?: string; offset?: number }[];
    /** A statement the engine's grammar rejects, the code the check answers, and the 1-based position it names when the engine gives one. */
    syntaxError: { sql: string; code: ErrorCode; position?: number };
    /** A statement that parses but names a column that does not exist, and the position the engine reports, if any. */
    unknownColumn: { sql: string; position?: number };
    /** A read that streams rows (thousands) and then fails on a value, as a division by zero does. */
    failsInStream: string;
    /** A statement the engine runs as a read but that writes (the check would refuse it), and a probe whose rows show whether it wrote. */
    engineWrite: { sql: string; probe: string };
  };
  /** Statements for the cancel cases, on an engine that declares the capability. */
  cancel: {
    /** A statement that runs about 30 s and returns one row, carrying `marker` so it can be found while it runs. */
    sleep(marker: string): string;
    /** An admin statement returning one row per statement still running on the engine whose text holds `marker`. */
    running(marker: string): string;
  };
  introspection: {
    schema: string;
    /** A table with a primary key, as describeTable must give it (the estimate aside). */
    table: Omit<TableDetail, 'estimatedRows'>;
    /** A table with a foreign key to `table`, as describeTable must give its keys. */
    child: Pick<TableDetail, 'name' | 'foreignKeys'>;
    /** Every relation the fixture makes in `schema`, by name, with its kind. */
    relations: { name: string; kind: TableKind }[];
    /** A search text and the names of the fixture relations it matches (at least two, so a limit of one cuts them). */
    search: { text: string; names: string[] };
  };
}
