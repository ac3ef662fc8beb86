/**
 * A DuckDB instance that can reach nothing but one folder: the read-only
 * boundary of a files datasource, set before any caller's statement runs.
 * - `allowed_directories` is the folder, and `enable_external_access =
 *   false` closes every other path, URL, ATTACH of a file, INSTALL and LOAD.
 *   DuckDB resolves neither `..` nor symbolic links before it checks, so a
 *   path that climbs out, or a link inside the folder pointing outside, is
 *   refused as written.
 * - `lock_configuration = true` makes every setting (these among them)
 *   unchangeable by a statement.
 * - No extension is installed or loaded on demand; Parquet, CSV and JSON
 *   are built in.
 * - No temporary directory: DuckDB would allow reads and writes there too.
 *   A statement that outgrows memory fails instead of spilling to disk.
 * The folder stays writable to the engine (DuckDB allows a folder, not a
 * mode): statements that write (COPY, EXPORT) are refused by the
 * statement-type check of every run, and the operator is told when the
 * server's user may write the folder at all.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { quoteLiteral } from '../../columns/column-plan.ts';

export async function openLockedInstance(folder: string): Promise<DuckDBInstance> {
  const instance = await DuckDBInstance.create(':memory:', {
    threads: '1',
    autoload_known_extensions: 'false',
    autoinstall_known_extensions: 'false',
    temp_directory: '',
  });
  const setup = await instance.connect();
  try {
    await setup.run(`SET allowed_directories = [${quoteLiteral(folder)}]`);
    await setup.run('SET enable_external_access = false');
    await setup.run("SET TimeZone = 'UTC'");
    await setup.run('SET lock_configuration = true');
  } finally {
    setup.closeSync();
  }
  return instance;
}
