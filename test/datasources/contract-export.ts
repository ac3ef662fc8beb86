/**
 * One export through the driver contract, wired as a query worker wires it
 * (workers/query-worker.ts): the statement checked by the API-thread half,
 * run by the export half, its rows turned into Parquet parts by
 * streamToParts on a real in-memory DuckDB, and engine errors passed
 * through the export half's mapError. The parts are then read back with
 * the contract's value encoding (rowJsonExpression), as artifact reads do,
 * so a case compares what a caller would see.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { expect } from 'vitest';
import { quoteLiteral } from '../../src/columns/column-plan.ts';
import { rowJsonExpression } from '../../src/columns/value-encoding.ts';
import { SluiceError } from '../../src/errors.ts';
import { streamToParts } from '../../src/worker/export/stream-to-parts.ts';
import type { ExportHooks, ExportRequest, ExportResult, Limits, Materialize, ParquetPart, PreviewData, StatementKind } from '../../src/worker/export-types.ts';
import type { DriverUnderTest } from './driver-fixture.ts';

export interface ExportOptions {
  params?: unknown[];
  limits?: Partial<Limits>;
  materialize?: Materialize;
  previewRows?: number;
  /** Hears the stopper the export hands out, as the worker keeps it for a cancel. */
  onStopper?: ExportHooks['onStopper'];
}

export interface ExportRun {
  result: ExportResult;
  /** The result's columns as a caller sees them. */
  columns: { name: string; type: string }[];
  /** The rows of the parts, in artifact order, each value as the contract encodes it. */
  rows: unknown[][];
  preview: PreviewData;
}

const GENEROUS: Limits = { maxRows: 10_000_000, maxBytes: 1 << 30, maxDurationMs: 60_000 };

export class ContractExports {
  readonly #work = mkdtempSync(join(tmpdir(), 'sluice-driver-contract-'));
  #instance: DuckDBInstance | null = null;
  #duck: DuckDBConnection | null = null;
  #copier: DuckDBConnection | null = null;
  #runs = 0;

  /** The reading DuckDB runs in UTC, as a query worker's does: timestamptz values are encoded in UTC. */
  async open(): Promise<void> {
    this.#instance = await DuckDBInstance.create(':memory:', { threads: '1' });
    this.#duck = await this.#instance.connect();
    await this.#duck.run("SET TimeZone = 'UTC'");
    // As a query worker has it: a second connection where parts fed by DuckDB chunks are written.
    this.#copier = await this.#instance.connect();
    await this.#copier.run("SET TimeZone = 'UTC'");
  }

  /** The DuckDB the parts are written with, as a query worker's export DuckDB. */
  get duck(): DuckDBConnection {
    return this.#duck!;
  }

  /** The second connection of the same DuckDB. */
  get copier(): DuckDBConnection {
    return this.#copier!;
  }

  close(): void {
    this.#copier?.closeSync();
    this.#duck?.closeSync();
    this.#instance?.closeSync();
    rmSync(this.#work, { recursive: true, force: true });
  }

  /** Checks `sql` and exports it with `options`; rejects with the SluiceError the worker would answer. */
  async run(under: DriverUnderTest, sql: string, options: ExportOptions = {}): Promise<ExportRun> {
    return this.runUnchecked(under, await under.driver.checkStatement(sql), options);
  }

  /** Exports a statement as if the check had passed it: what the engine's own read-only boundary must stop. */
  async runUnchecked(under: DriverUnderTest, checked: { sql: string; kind: StatementKind }, options: ExportOptions = {}): Promise<ExportRun> {
    const duck = this.#duck!;
    const stagingDir = join(this.#work, `export-${++this.#runs}`);
    mkdirSync(stagingDir, { recursive: true });
    const request: ExportRequest = {
      sql: checked.sql,
      kind: checked.kind,
      params: options.params ?? [],
      previewRows: options.previewRows ?? 5,
      previewBytes: 1 << 20,
      previewCellChars: 10_000,
      materialize: options.materialize ?? 'always',
      limits: { ...GENEROUS, ...options.limits },
      stagingDir,
    };
    const previews: PreviewData[] = [];
    const announced: ParquetPart[] = [];
    const hooks: ExportHooks = {
      onPreview: (preview) => previews.push(preview),
      onProgress: () => undefined,
      onPart: (part) => announced.push(part),
      onStopper: (stop) => options.onStopper?.(stop),
    };
    let result: ExportResult;
    try {
      result = await under.exports.export(under.url, request, (columns, source) => streamToParts(source, duck, request, columns, hooks, this.#copier!));
    } catch (error) {
      throw under.exports.mapError(error) ?? error;
    }
    expect(previews).toHaveLength(1);
    const parts = result.parts ?? [];
    expect(announced).toEqual(parts);
    expect(parts.reduce((sum, part) => sum + part.rows, 0)).toBe(result.parts === null ? 0 : result.rows);
    const files = parts.map((part) => quoteLiteral(join(stagingDir, part.name)));
    const rows =
      files.length === 0
        ? []
        : (await duck.runAndReadAll(
            `SELECT ${rowJsonExpression(result.columns)} FROM read_parquet([${files.join(', ')}], filename = true, file_row_number = true) ORDER BY filename, file_row_number`,
          )).getRowsJS().map((row) => JSON.parse(String(row[0])) as unknown[]);
    rmSync(stagingDir, { recursive: true, force: true });
    return { result, columns: result.columns.map((c) => ({ name: c.name, type: c.type })), rows, preview: previews[0]! };
  }
}

/** The SluiceError `work` rejects with; fails the test when it resolves or rejects with anything else. */
export async function failureOf(work: Promise<unknown>): Promise<SluiceError> {
  const outcome = await work.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`expected a failure, got ${JSON.stringify(outcome.value)?.slice(0, 300)}`);
  expect(outcome.error).toBeInstanceOf(SluiceError);
  return outcome.error as SluiceError;
}
