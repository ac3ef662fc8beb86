/**
 * The operator's log: one small interface handed to whatever needs to report
 * (the query service, the worker pools, the app's error handler, the AI
 * tools), so where lines go is decided once, at the composition root, and
 * tests can capture them. Callers log causes here, never in responses.
 */
export interface Logger {
  info(line: string): void;
  /** Something failed; `cause` (an error with its stack) is for the operator only. */
  error(line: string, cause?: unknown): void;
}

export const consoleLogger: Logger = {
  info: (line) => console.log(line),
  error: (line, cause) => (cause === undefined ? console.error(line) : console.error(line, cause)),
};

/** Failures only, for servers whose start-up chatter nobody reads (tests, benchmarks). */
export const quietLogger: Logger = { info: () => undefined, error: consoleLogger.error };
