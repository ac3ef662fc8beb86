/**
 * The JavaScript function behind a row function (SqliteConnection's
 * rowFunction): both libraries take a function's argument count from its
 * `length`, and call it with the row's values as arguments, which reach the
 * sink as the `arguments` object (no array made per row).
 */
import type { RowSink } from './sqlite-connection.ts';

export function rowFunctionOf(width: number, sink: RowSink): () => number {
  // A row is yielded where the function returns 1, and filtered out where it returns 0.
  const rowFunction = function (): number {
    return sink(arguments as unknown as ArrayLike<never>) ? 1 : 0;
  };
  Object.defineProperty(rowFunction, 'length', { value: width });
  return rowFunction;
}
