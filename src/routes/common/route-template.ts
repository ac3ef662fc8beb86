/**
 * The route a request was for, as its template (`/api/artifacts/:id`),
 * never the URL it came with: bounded, and free of ids. Metrics label
 * requests with it and an audit record can name it. Middleware patterns
 * (`*`, `/api/*`) are not routes: a request refused by one of them (no
 * token, over the rate limit) is named after the route it was going to, and
 * a request no route matches is UNMATCHED_ROUTE.
 */
import type { Context } from 'hono';
import { matchedRoutes } from 'hono/route';

export const UNMATCHED_ROUTE = 'unmatched';

const isPattern = (path: string): boolean => path.includes('*');

/** Call once the request has been answered (after `next()`), when the route that answered is known. */
export function routeTemplateOf(c: Context): string {
  const routes = matchedRoutes(c);
  const answered = routes[c.req.routeIndex];
  if (answered !== undefined && !isPattern(answered.path)) return answered.path;
  // Stopped in a middleware, or nothing matched: the first route past it, if there is one.
  const ahead = routes.slice(c.req.routeIndex + 1).find((route) => !isPattern(route.path));
  return ahead?.path ?? UNMATCHED_ROUTE;
}
