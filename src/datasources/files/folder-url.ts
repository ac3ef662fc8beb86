/**
 * A files datasource's URL, `file:///absolute/dir`, as the folder it names.
 * The folder is checked for existence when it is read, not here: a folder
 * that appears later (a mount not ready at start-up) serves from then on.
 */
import { isAbsolute, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SluiceError } from '../../errors.ts';

export function folderOf(url: string): string {
  let path: string;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'file:' || parsed.search !== '' || parsed.hash !== '') throw new Error('not a plain file URL');
    path = fileURLToPath(parsed);
  } catch {
    throw new SluiceError('VALIDATION_ERROR', 'A files datasource URL is file:///absolute/folder, with no host, query or fragment.');
  }
  if (!isAbsolute(path)) throw new SluiceError('VALIDATION_ERROR', 'A files datasource URL names an absolute folder: file:///absolute/folder.');
  const folder = normalize(path);
  // DuckDB's allowed_directories matches by prefix: the root would allow everything.
  if (folder === '/') throw new SluiceError('VALIDATION_ERROR', 'A files datasource cannot be the root folder; name the folder that holds the files.');
  return folder.endsWith('/') ? folder.slice(0, -1) : folder;
}
