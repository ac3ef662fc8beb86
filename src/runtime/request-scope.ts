/**
 * The request a piece of work belongs to, carried through its awaits
 * (AsyncLocalStorage, which Node, Deno and Bun all provide under
 * node:async_hooks), so a log line written deep in a request's work can
 * name the request without every caller passing its id down.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const scope = new AsyncLocalStorage<string>();

/** Runs `work` (and everything it awaits or starts) as part of the request `requestId`. */
export function inRequest<T>(requestId: string, work: () => T): T {
  return scope.run(requestId, work);
}

/** The id of the request the caller's work belongs to, if any. */
export function currentRequestId(): string | undefined {
  return scope.getStore();
}
