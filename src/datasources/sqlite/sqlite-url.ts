/**
 * A SQLite datasource URL, `sqlite:///absolute/path.db`, as the file path
 * it names. A relative path would depend on the directory the server was
 * started in, and a host has no meaning for a local file: both are refused
 * so a URL always names one file.
 */
import { isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SluiceError } from '../../errors.ts';

const FORM = 'use sqlite:///absolute/path.db';

export function sqliteFileOf(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new SluiceError('VALIDATION_ERROR', `A SQLite datasource URL is not a URL; ${FORM}.`);
  }
  if (parsed.protocol !== 'sqlite:') throw new SluiceError('VALIDATION_ERROR', `A SQLite datasource URL starts with sqlite://; ${FORM}.`);
  if (parsed.host !== '' || parsed.username !== '' || parsed.password !== '') {
    throw new SluiceError('VALIDATION_ERROR', `A SQLite datasource URL names a local file and takes no host; ${FORM}.`);
  }
  if (parsed.search !== '' || parsed.hash !== '') {
    throw new SluiceError('VALIDATION_ERROR', `A SQLite datasource URL takes no query or fragment; ${FORM}.`);
  }
  // Without `//` the path is relative to wherever the server runs (sqlite:data.db); with `//` and no host it is absolute.
  if (!url.startsWith('sqlite:///') || !parsed.pathname.startsWith('/')) {
    throw new SluiceError('VALIDATION_ERROR', `A SQLite datasource URL needs an absolute path; ${FORM}.`);
  }
  const file = fileURLToPath(`file://${parsed.pathname}`);
  if (!isAbsolute(file) || file.endsWith('/')) throw new SluiceError('VALIDATION_ERROR', `A SQLite datasource URL names a file, not a directory; ${FORM}.`);
  return file;
}
