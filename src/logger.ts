/**
 * The operator's log: one small interface handed to whatever needs to report
 * (the query service, the worker pools, the app's error handler, the AI
 * tools), so where lines go is decided once, at the composition root, and
 * tests can capture them. Callers log causes here, never in responses.
 */
import { currentRequestId } from './runtime/request-scope.ts';
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

/**
 * Lines written while a request's work runs name the request
 * (`[request <X-Request-Id>] ...`), so an operator can find every line of
 * one answer. Meant for what works on behalf of requests (the app, the query
 * use-case, the store); long-lived machinery whose events may fire in the
 * scope of whichever request first woke it (worker threads, connection
 * pools) keeps the plain logger, so its lines are never pinned on a request.
 */
export function withRequestIds(logger: Logger): Logger {
  const tagged = (line: string): string => {
    const id = currentRequestId();
    return id === undefined ? line : `[request ${id}] ${line}`;
  };
  return {
    info: (line) => logger.info(tagged(line)),
    error: (line, cause) => (cause === undefined ? logger.error(tagged(line)) : logger.error(tagged(line), cause)),
  };
}
