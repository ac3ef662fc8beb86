/**
 * What a folder holds, as tables: a Parquet, CSV or JSON file at the top is
 * a table of schema `main` named by its file name without the extension; a
 * file one subfolder down is a table of the schema named after that
 * subfolder. Deeper files, and files whose table names would clash (DuckDB
 * compares names without case, so `Orders.csv` and `orders.parquet` are one
 * name), are skipped, each with a line naming them relative to the folder.
 * The scan also gives a signature of everything it saw (names, sizes and
 * modification times): when it differs from the last one, the engine builds
 * its tables again before the next listing or query.
 */
import { readdir, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { SluiceError } from '../../errors.ts';

export const DEFAULT_SCHEMA = 'main';

/** The reader of each extension DuckDB reads without an extension to load. */
const FORMATS: Record<string, FileFormat> = { '.parquet': 'parquet', '.csv': 'csv', '.json': 'json', '.jsonl': 'json', '.ndjson': 'json' };

export type FileFormat = 'parquet' | 'csv' | 'json';

export interface FileTable {
  schema: string;
  name: string;
  /** Absolute path of the file. */
  path: string;
  /** Path relative to the folder, for log lines and messages. */
  relative: string;
  format: FileFormat;
  /** Size and modification time, what the signature is made of. */
  stamp: string;
}

export interface FolderScan {
  tables: FileTable[];
  /** One line per skipped file or group of files, relative to the folder. */
  skipped: string[];
  signature: string;
}

interface Entry {
  name: string;
  path: string;
  isFile: boolean;
  isDirectory: boolean;
  stamp: string;
}

/** The entries of a directory, symbolic links followed (DuckDB refuses those that lead outside the folder). */
async function entries(dir: string): Promise<Entry[]> {
  const names = (await readdir(dir)).sort();
  const out: Entry[] = [];
  for (const name of names) {
    const path = join(dir, name);
    const info = await stat(path).catch(() => null);
    if (info === null) continue;
    out.push({ name, path, isFile: info.isFile(), isDirectory: info.isDirectory(), stamp: `${info.size}:${info.mtimeMs}` });
  }
  return out;
}

export function unavailable(): SluiceError {
  return new SluiceError(
    'DATASOURCE_UNAVAILABLE',
    'The folder of this datasource is missing or cannot be read by the server; retry once it is back.',
    { retryable: true },
  );
}

export async function scanFolder(folder: string): Promise<FolderScan> {
  let top: Entry[];
  try {
    top = await entries(folder);
  } catch {
    throw unavailable();
  }
  const found: FileTable[] = [];
  const skipped: string[] = [];
  const seen: string[] = [];
  const add = (schema: string, entry: Entry, relative: string) => {
    const format = FORMATS[extname(entry.name).toLowerCase()];
    if (format === undefined) return;
    const name = entry.name.slice(0, entry.name.length - extname(entry.name).length);
    found.push({ schema, name, path: entry.path, relative, format, stamp: entry.stamp });
  };
  for (const entry of top) {
    seen.push(`${entry.name}|${entry.stamp}`);
    if (entry.isFile) add(DEFAULT_SCHEMA, entry, entry.name);
    if (!entry.isDirectory) continue;
    const inner = await entries(entry.path).catch(() => {
      skipped.push(`Skipped folder ${entry.name}: the server cannot read it.`);
      return [];
    });
    for (const file of inner) {
      const relative = `${entry.name}/${file.name}`;
      seen.push(`${relative}|${file.stamp}`);
      if (file.isFile) add(entry.name, file, relative);
      else if (file.isDirectory) skipped.push(`Skipped folder ${relative}: tables are read from the folder and one subfolder down, not deeper.`);
    }
  }
  const tables = withoutClashes(found, skipped);
  return { tables, skipped, signature: JSON.stringify(seen) };
}

/** Tables whose schema and name are one name to DuckDB are all skipped, with one line naming their files. */
function withoutClashes(found: FileTable[], skipped: string[]): FileTable[] {
  const groups = new Map<string, FileTable[]>();
  for (const table of found) {
    const key = JSON.stringify([table.schema.toLowerCase(), table.name.toLowerCase()]);
    groups.set(key, [...(groups.get(key) ?? []), table]);
  }
  const kept: FileTable[] = [];
  for (const group of groups.values()) {
    if (group.length === 1) kept.push(group[0]!);
    else skipped.push(`Skipped ${group.map((t) => t.relative).join(' and ')}: their table names differ only by extension or case, so neither is read.`);
  }
  return kept;
}
