/**
 * JSON request bodies, whatever their Content-Type says. A route that
 * declares an application/json body reads the body as JSON whenever it
 * parses, so `curl -d '{…}'` (sent as application/x-www-form-urlencoded)
 * works as the documented AI Chat / AI Agent calls are written. A body that
 * is not JSON, and no body where one is required, are VALIDATION_ERROR with
 * a message that says so. Applied once, where routes are registered, to
 * every route with a JSON body; a body of another media type a route
 * declares (an upload) passes untouched. The body limit runs before this.
 */
import type { Env, MiddlewareHandler } from 'hono';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { SluiceError } from '../../errors.ts';

const JSON_MEDIA = /^application\/([\w.-]+\+)?json$/i;

function essence(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

function isJson(mediaType: string): boolean {
  return JSON_MEDIA.test(essence(mediaType));
}

function notJson(contentType: string | undefined): SluiceError {
  const sent = contentType === undefined ? 'no Content-Type' : `Content-Type ${essence(contentType).slice(0, 100) || '(empty)'}`;
  return new SluiceError('VALIDATION_ERROR', `The request body is not valid JSON (it was sent with ${sent}, and is read as JSON whatever that says); send one JSON object.`, {
    issues: [{ path: 'body', message: 'not valid JSON' }],
  });
}

/** Reads the body as JSON text and hands it on as application/json, so the route's validator sees JSON. */
export function jsonBody(required: boolean, declared: readonly string[]): MiddlewareHandler {
  const others = declared.filter((m) => !isJson(m)).map((m) => m.toLowerCase());
  return async (c, next) => {
    const contentType = c.req.header('content-type');
    if (others.includes(essence(contentType))) return next();
    const text = await c.req.text();
    if (text.trim() === '') {
      if (!required) return next();
      throw new SluiceError('VALIDATION_ERROR', 'This route needs a JSON body, and none was sent.', { issues: [{ path: 'body', message: 'required' }] });
    }
    try {
      JSON.parse(text);
    } catch {
      throw notJson(contentType);
    }
    if (contentType === undefined || !isJson(contentType)) {
      const headers = new Headers(c.req.raw.headers);
      headers.set('content-type', 'application/json');
      c.req.raw = new Request(c.req.raw, { headers, body: text });
    }
    return next();
  };
}

type RouteArgument<E extends Env> = Parameters<OpenAPIHono<E>['openapi']>[0];

/** Makes every route `app.openapi` registers from now on that declares a JSON body read it with `jsonBody`. */
export function readJsonBodies<E extends Env>(app: OpenAPIHono<E>): void {
  const register = app.openapi;
  const wrapped = (route: RouteArgument<E>, ...rest: unknown[]) => {
    const body = route.request?.body;
    const declared = Object.keys(body?.content ?? {});
    if (!declared.some(isJson)) return (register as (...args: unknown[]) => unknown)(route, ...rest);
    const own = route.middleware === undefined ? [] : Array.isArray(route.middleware) ? route.middleware : [route.middleware];
    return (register as (...args: unknown[]) => unknown)({ ...route, middleware: [jsonBody(body?.required === true, declared), ...own] }, ...rest);
  };
  app.openapi = wrapped as typeof app.openapi;
}
