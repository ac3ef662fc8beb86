/**
 * The rows of a statement process as the core reads them (RowSource):
 * each rows frame is a chunk of whole CSV records with its count and
 * longest record. A cancel asks the process to stop (and kills it if it
 * does not); the iteration then ends with an error, as a cancelled
 * statement's does on every engine.
 */
import { SluiceError } from '../../../errors.ts';
import type { RowSource, SourceChunk } from '../../../worker/export/row-source.ts';
import { SqliteEngineError } from '../sqlite-errors.ts';
import type { StatementFailure } from './statement-protocol.ts';
import type { StatementProcess } from './statement-process.ts';

/** A failure the process reported, as the export throws it: SQLite's own errors are mapped by the driver's mapError. */
export function failureError(failure: StatementFailure): Error {
  switch (failure.kind) {
    case 'sqlite':
      return new SqliteEngineError(failure);
    case 'contract':
      return new SluiceError(failure.code, failure.message, failure.code === 'DATASOURCE_UNAVAILABLE' ? { retryable: true } : undefined);
    case 'stopped':
      return new Error('The statement was stopped.');
  }
}

export function processEnded(): SluiceError {
  return new SluiceError('SQL_ERROR', 'The SQLite statement process ended unexpectedly; the query can be retried.', { retryable: true });
}

export class ProcessRowSource implements RowSource {
  readonly #process: StatementProcess;
  /** The statement reached its end or reported a failure: the process can serve another. */
  finished = false;

  constructor(process: StatementProcess) {
    this.#process = process;
  }

  cancel(): void {
    this.#process.stop();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<SourceChunk> {
    for (;;) {
      const frame = await this.#process.next();
      if (frame === null) throw processEnded();
      if (frame.kind === 'rows') {
        yield { bytes: frame.bytes, rows: frame.rows, longestRow: frame.longestRow };
      } else if (frame.kind === 'end') {
        this.finished = true;
        this.#process.stopped();
        return;
      } else if (frame.kind === 'failed') {
        this.finished = true;
        this.#process.stopped();
        throw failureError(frame.failure);
      } else {
        throw new Error(`A statement process sent a ${frame.kind} frame while streaming rows.`);
      }
    }
  }
}
