/**
 * The datasource driver contract: the one seam every database engine
 * implements, and the only way the rest of the server reaches an engine.
 * A driver folder (postgres/, and one per engine after it) owns everything
 * that knows the engine: connecting, its parser and read-only check, its
 * catalog for introspection, its type names, its SQL for the semantic
 * compiler and the AI prompts, its error codes, its cancel. The core owns
 * the rest, the same for every engine: caps, previews, completeness,
 * artifacts and the envelope.
 *
 * A driver has two halves, because an export runs in a query worker and the
 * rest on the API thread: `DatasourceDriver` (opened per datasource on the
 * API thread) and `ExportDriver` (opened once per worker thread, per kind).
 * What one half needs of the other crosses the worker boundary as plain
 * data: the datasource's kind and URL, and the checked statement.
 *
 * Capabilities are declared, not discovered by trying: the code that needs
 * one (the cancel route's promise, the tests that prove an engine stops,
 * the concurrency of a datasource) asks the flag.
 */
import type { SluiceError } from '../errors.ts';
import type { PlannedColumn } from '../columns/column-plan.ts';
import type { ExportRequest, ExportResult, StatementKind } from '../worker/export-types.ts';
import type { RowSource } from '../worker/export/row-source.ts';
import type { ChunkRowSource } from '../worker/export/chunk-row-source.ts';
import type { DatasourceKind, DialectName, SqlBlockKind, TableKind } from '../vocabulary.ts';

/** The kinds and dialect names live in vocabulary.ts (the API's enums); kinds are listed there as their drivers land. */
export type { DatasourceKind, DialectName } from '../vocabulary.ts';

export interface DriverCapabilities {
  /** A running statement can be stopped on the engine itself, and the cancel answers at once. */
  cancel: boolean;
  /** The engine refuses writes in the session a query runs in, beyond the statement check. */
  engineReadOnly: boolean;
  /** Statements may run side by side on one datasource; false serializes them (one real session). */
  concurrentStatements: boolean;
}

/** A statement that passed the driver's read-only check, as the export runs it. */
export interface CheckedStatement {
  kind: StatementKind;
  /** The statement text, trimmed of surrounding whitespace and the trailing semicolon. */
  sql: string;
  /**
   * Characters (code points, as the engine counts error positions) of the
   * sent text before `sql`: what turns a position in `sql` into one in the
   * sent text.
   */
  offset: number;
  /** The highest bound parameter the statement uses, 0 if none. */
  paramCount: number;
}

export interface TableSummary {
  schema: string;
  name: string;
  kind: TableKind;
  estimatedRows: number | null;
}

export interface TableDetail extends TableSummary {
  columns: { name: string; type: string; nullable: boolean }[];
  primaryKey: string[];
  foreignKeys: { name: string; columns: string[]; references: { schema: string; table: string; columns: string[] } }[];
}

export interface ListTablesOptions {
  schema?: string | undefined;
  search?: string | undefined;
  limit: number;
}

/** The grains a time dimension can be truncated to. */
export type TimeGrain = 'day' | 'week' | 'month' | 'quarter' | 'year';

/** The value types of the semantic layer's fields and parameters. */
export type SemanticValueType = 'string' | 'number' | 'boolean' | 'date' | 'timestamp';

/**
 * What the semantic compiler and the AI prompts need of an engine's SQL, so
 * neither ever branches on the engine (Lightdash's WarehouseSqlBuilder).
 */
export interface SqlDialect {
  /** The dialect's name in the API (`dialect` of a datasource) and the chat's default `flavor`. */
  readonly name: DialectName;
  /** The engine's name for people and models ("PostgreSQL"). */
  readonly label: string;
  /** Code-fence tags that mark this dialect's SQL in a model's reply (besides `sql`), lower case: postgres, mysql, sqlite... */
  readonly fenceTags: readonly string[];
  quoteIdentifier(name: string): string;
  /** A qualified relation name ("schema.table" as the models write it) quoted part by part. */
  quoteRelation(dotted: string): string;
  /** The placeholder of the n-th bound value (1-based), cast to the engine's type for `type`. */
  parameter(index: number, type: SemanticValueType): string;
  /**
   * `expression` truncated to `grain`; a date stays a date. With type 'date'
   * the result is a date even when `expression` is a timestamp: a merge
   * joining a date key to a timestamp key compares both that way.
   */
  dateTrunc(grain: TimeGrain, expression: string, type: 'date' | 'timestamp'): string;
  /** A boolean expression: the text of `expression` contains / starts with the text `needle` stands for. */
  contains(expression: string, needle: string): string;
  startsWith(expression: string, needle: string): string;
  /** An ORDER BY item with NULLs last, whatever the engine's default. */
  orderBy(expression: string, direction: 'asc' | 'desc'): string;
  /** The clause that keeps the first `rows` rows. */
  limit(rows: number): string;
  /**
   * The engine runs FULL [OUTER] JOIN; without it (MariaDB, MySQL) a full
   * merge is compiled as its LEFT JOIN + unmatched-right equivalent (RIGHT
   * JOIN and UNION ALL). Merge join conditions also need `(a IS NULL) =
   * (b IS NULL)` and a `parameter` placeholder of each key type inside
   * COALESCE, so that NULL keys match.
   */
  readonly fullJoin: boolean;
  /**
   * An expression that, once evaluated, fails the statement with an error
   * whose message holds `text` (letters, digits, `_:,` only). Engines share
   * no RAISE usable in a SELECT, so each uses an expression it refuses and
   * quotes in its error, made non-constant so that no planner evaluates it
   * before the CASE branch holding it is taken. A merge uses it to fail
   * itself when a source is over SLUICE_MERGE_SOURCE_ROWS.
   */
  failWith(text: string): string;
  /** "schema.table" as a person or model writes it, split into its parts (the default schema when none is given). */
  splitTableName(text: string): [string, string];
}

/** One datasource's driver on the API thread. */
export interface DatasourceDriver {
  readonly kind: DatasourceKind;
  readonly capabilities: DriverCapabilities;
  /**
   * The datasource's SQL dialect. A kind that speaks more than one (MariaDB
   * and MySQL) answers its kind's default until the server has said which it
   * is, and the server's own from then on.
   */
  readonly dialect: SqlDialect;
  /** Parses `sql` with the engine's own grammar and refuses anything that is not one read statement. */
  checkStatement(sql: string): Promise<CheckedStatement>;
  /** Labels SQL for the chat feature (never run): select, dml, ddl or other. */
  classify(sql: string): Promise<SqlBlockKind>;
  /** The statement's own top-level LIMIT when it is a plain number. */
  ownLimit(sql: string): Promise<number | null>;
  listTables(options: ListTablesOptions): Promise<{ tables: TableSummary[]; total: number }>;
  /** Null when no such table is visible. */
  describeTable(schema: string, name: string): Promise<TableDetail | null>;
  /** A cheap round trip; throws a SluiceError when the engine cannot be reached. */
  health(): Promise<void>;
  /** Things the operator should hear at start-up (a superuser connection, an unreachable server). */
  startupWarnings(): Promise<string[]>;
  close(): Promise<void>;
}

/** The statement an export runs, what it hands over, and how its rows reach the core. */
export type ConsumeRows = (columns: PlannedColumn[], source: RowSource | ChunkRowSource) => Promise<ExportResult>;

/** One kind's export half, inside a query worker thread: one per worker, serving every datasource of its kind. */
export interface ExportDriver {
  /**
   * Runs `request.sql` read-only on the datasource at `url` and hands its
   * columns (in the column model) and a streaming, cancellable row source
   * to `consume`, which applies the caps at exact row boundaries. Whatever
   * fails comes back as a SluiceError with the engine's error mapped.
   */
  export(url: string, request: ExportRequest, consume: ConsumeRows): Promise<ExportResult>;
  /** Engine errors as contract errors; anything not the engine's is left to toSluiceError. */
  mapError(error: unknown): SluiceError | undefined;
  close(): Promise<void>;
}
