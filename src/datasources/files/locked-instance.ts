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
 *
 * An export's statement streams its rows to a consumer that spends time of
 * its own between fetches (appending, sealing parts). With a second thread
 * and a streaming buffer of a few MB, DuckDB goes on producing rows into the
 * buffer meanwhile instead of waiting for the next fetch. The buffer is a
 * connection's setting, which the lock would refuse later, so that
 * connection is made here, before the lock, and handed back with the
 * instance.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { quoteLiteral } from '../../columns/column-plan.ts';

export interface LockedInstanceOptions {
  /** DuckDB's worker threads for the instance's statements. */
  threads: number;
  /** When set, one connection is made before the lock with a streaming buffer of this size (DuckDB's units: '4MB'). */
  streamingBuffer?: string | undefined;
}

export interface LockedInstance {
  instance: DuckDBInstance;
  /** The connection with the streaming buffer, or null when none was asked for. */
  streaming: DuckDBConnection | null;
}

export async function openLockedInstance(folder: string, options: LockedInstanceOptions = { threads: 1 }): Promise<LockedInstance> {
  const instance = await DuckDBInstance.create(':memory:', {
    threads: String(options.threads),
    autoload_known_extensions: 'false',
    autoinstall_known_extensions: 'false',
    temp_directory: '',
  });
  const setup = await instance.connect();
  let streaming: DuckDBConnection | null = null;
  try {
    await setup.run(`SET allowed_directories = [${quoteLiteral(folder)}]`);
    await setup.run('SET enable_external_access = false');
    await setup.run("SET TimeZone = 'UTC'");
    if (options.streamingBuffer !== undefined) {
      streaming = await instance.connect();
      await streaming.run(`SET streaming_buffer_size = ${quoteLiteral(options.streamingBuffer)}`);
    }
    await setup.run('SET lock_configuration = true');
  } catch (error) {
    streaming?.closeSync();
    instance.closeSync();
    throw error;
  } finally {
    setup.closeSync();
  }
  return { instance, streaming };
}
