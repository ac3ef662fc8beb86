/**
 * What hashes cannot prove about a bundle: that its parts are Parquet
 * files holding what the manifest says. Each artifact's parts are opened by
 * DuckDB on the read workers (as every later read will open them) and their
 * stored column names and row count compared with the manifest, so an
 * imported artifact reads like the one exported, or the bundle is refused.
 */
import { quoteLiteral } from '../../columns/column-plan.ts';
import { pageRows } from '../read-page.ts';
import type { StoreWorkers } from '../store/store-context.ts';
import { rejected, type BundleArtifact } from './manifest.ts';
import { partFile } from './read-bundle.ts';

export async function checkParts(workers: StoreWorkers, dir: string, artifact: BundleArtifact): Promise<void> {
  const source = `read_parquet([${artifact.parts.map((p) => quoteLiteral(partFile(dir, p.sha256))).join(', ')}])`;
  let names: string[];
  let rows: number;
  try {
    // A read answers each row as the JSON text of the array in its one text column.
    const values = async (sql: string) => pageRows(await workers.read(sql, []));
    names = (await values(`SELECT CAST(to_json([column_name]) AS VARCHAR) FROM (DESCRIBE SELECT * FROM ${source})`)).map((r) => String(r[0]));
    rows = Number((await values(`SELECT CAST(to_json([count(*)]) AS VARCHAR) FROM ${source}`))[0]?.[0]);
  } catch {
    throw rejected('UNREADABLE_PART', `the parts of artifact "${artifact.id}" are not Parquet files Sluice can read.`);
  }
  const declared = artifact.columns.map((c) => c.storageName);
  if (names.length !== declared.length || names.some((n, i) => n !== declared[i])) {
    throw rejected('BAD_MANIFEST', `the columns of artifact "${artifact.id}" are not the ones its parts store.`);
  }
  if (rows !== artifact.rowCount) throw rejected('BAD_MANIFEST', `artifact "${artifact.id}" says ${artifact.rowCount} rows but its parts hold ${rows}.`);
}
