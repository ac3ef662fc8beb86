/** The Parquet parts of the artifacts in a bench Sluice's local store: <dataDir>/artifacts/objects/<2 hex>/<hash>/part-*.parquet. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

export function partFiles(dataDir: string): string[] {
  const objects = join(dataDir, 'artifacts', 'objects');
  const files: string[] = [];
  for (const prefix of readdirSync(objects)) {
    for (const hash of readdirSync(join(objects, prefix))) {
      for (const name of readdirSync(join(objects, prefix, hash))) {
        if (/^part-\d+\.parquet$/.test(name)) files.push(join(objects, prefix, hash, name));
      }
    }
  }
  return files.sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
}
