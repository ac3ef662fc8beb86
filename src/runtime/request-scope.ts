/**
 * The request a piece of work belongs to, carried through its awaits
 * (AsyncLocalStorage, which Node, Deno and Bun all provide under
 * node:async_hooks), so a log line written deep in a request's work can
 * name the request, and work that outlives the answer (a query still
 * running) can say which request and route started it, without every
 * caller passing them down.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

interface RequestScope {
  requestId: string;
  /** The route template the request is for, once a middleware has named it. */
  route: string | undefined;
}

const scope = new AsyncLocalStorage<RequestScope>();

/** Runs `work` (and everything it awaits or starts) as part of the request `requestId`. */
export function inRequest<T>(requestId: string, work: () => T): T {
  return scope.run({ requestId, route: undefined }, work);
}

/** Runs `work` as part of the current request, for the route `route`. */
export function onRoute<T>(route: string, work: () => T): T {
  const current = scope.getStore();
  return current === undefined ? work() : scope.run({ ...current, route }, work);
}

/** The id of the request the caller's work belongs to, if any. */
export function currentRequestId(): string | undefined {
  return scope.getStore()?.requestId;
}

/** The route template of the request the caller's work belongs to, if a middleware named it. */
export function currentRoute(): string | undefined {
  return scope.getStore()?.route;
}
