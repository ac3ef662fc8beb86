/**
 * DuckDB's errors in the contract's codes. DuckDB names the kind of an
 * error at the start of its message ("Binder Error: ..."); that kind
 * decides the code. A refused path, extension or setting is
 * READ_ONLY_VIOLATION with a sentence of ours, since DuckDB's own names the
 * path it refused; every other message has the folder's absolute path cut
 * to paths relative to it, any other absolute path replaced, and DuckDB's
 * echo of the statement ("LINE 1: ...") dropped.
 */
import { SluiceError } from '../../errors.ts';

const SQL_KINDS = new Set([
  'Parser', 'Binder', 'Catalog', 'Conversion', 'Invalid Input', 'Out of Range', 'Not implemented', 'Constraint',
  'Dependency', 'Invalid type', 'Mismatch Type', 'Syntax', 'Type', 'Invalid', 'IO', 'Sequence', 'Parameter Not Resolved', 'Parameter Not Allowed',
]);

const REFUSED =
  'The statement reached for something outside the datasource\u2019s folder (another path, an extension, a database file or a setting); only the files in the folder can be read.';

/** The kind DuckDB names at the start of its message, or undefined when the error is not DuckDB's. */
function kindOf(message: string): string | undefined {
  const match = /^([A-Za-z ]+?) Error: /.exec(message);
  return match?.[1];
}

/** DuckDB's message without its echo of the statement, with no absolute path but the folder's, and that one relative. */
export function scrubbed(message: string, folder: string | null): string {
  let text = message.split('\n\nLINE ')[0]!.replace(/^[A-Za-z ]+? Error: /, '');
  if (folder !== null) text = text.replaceAll(`${folder}/`, '').replaceAll(folder, '.');
  return text.replace(/(["'])\/[^"'\n]*\1/g, '$1(a path outside the folder)$1').trim();
}

/** The contract error for an error DuckDB raised; undefined for anything that is not DuckDB's. */
export function duckdbError(error: unknown, folder: string | null = null): SluiceError | undefined {
  if (error instanceof SluiceError || !(error instanceof Error)) return undefined;
  const kind = kindOf(error.message);
  if (kind === undefined) return undefined;
  if (kind === 'Permission') return new SluiceError('READ_ONLY_VIOLATION', REFUSED);
  if (kind === 'Interrupt' || kind === 'INTERRUPT') return new SluiceError('QUERY_CANCELLED', 'The query was cancelled.');
  if (kind === 'Transaction' || kind === 'TransactionContext') {
    return new SluiceError('READ_ONLY_VIOLATION', 'The engine refused a write: the datasource is read-only.');
  }
  if (kind === 'Invalid Input' && /configuration has been locked/.test(error.message)) {
    return new SluiceError('READ_ONLY_VIOLATION', 'The engine\u2019s settings cannot be changed by a query.');
  }
  if (!SQL_KINDS.has(kind)) return undefined;
  const message = scrubbed(error.message, folder);
  if (kind === 'IO') {
    return new SluiceError('SQL_ERROR', `A file of the datasource could not be read (it may have changed or disappeared while the query ran): ${message}`, { retryable: true });
  }
  return new SluiceError('SQL_ERROR', message, { kind });
}
