/** Handlers of /api/sessions (listing, reference copy, retirement, export, import) and /api/usage. */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { hasRole, type Principal } from '../../auth/principals.ts';
import { requireRole, type AppEnv } from '../../auth/middleware.ts';
import type { ArtifactStore } from '../../artifacts/types.ts';
import { SluiceError } from '../../errors.ts';
import { bodyChunks } from '../common/body-chunks.ts';
import { ok } from '../common/envelope.ts';
import { copySession, exportSession, getUsage, importSession, listSessions, retireSession } from './routes.ts';

export interface SessionRouteOptions {
  ttlSeconds: number;
  importMaxBytes: number;
}

export function registerSessionRoutes(app: OpenAPIHono<AppEnv>, store: ArtifactStore, options: SessionRouteOptions): void {
  app.openapi(listSessions, async (c) => {
    const sessions = await store.sessions(requireRole(c, 'reader').id);
    return c.json(ok(`${sessions.length} session(s) with readable artifacts.`, { sessions }), 200);
  });

  app.openapi(copySession, async (c) => {
    const principal = requireRole(c, 'reader');
    const { targetSessionId, artifactIds } = c.req.valid('json');
    const result = await store.copySession(principal.id, c.req.valid('param').id, targetSessionId, options.ttlSeconds, artifactIds);
    return c.json(ok(`Copied ${result.mapping.length} artifact reference(s).`, result), 200);
  });

  app.openapi(retireSession, async (c) => {
    const principal = requireRole(c, 'reader');
    const result = await store.retireSession(principal.id, c.req.valid('param').id);
    return c.json(ok(`Released ${result.releasedArtifacts} artifact(s), ${result.releasedBytes} bytes.`, result), 200);
  });

  app.openapi(exportSession, async (c) => {
    const principal = requireRole(c, 'reader');
    const bundle = await store.exportSession(principal.id, c.req.valid('param').id);
    return c.body(bundle.body, 200, { 'content-type': 'application/x-tar', 'content-disposition': `attachment; filename="${bundle.fileName}"` });
  });

  app.openapi(importSession, async (c) => {
    const principal = requireRole(c, 'reader');
    const sessionId = c.req.valid('param').id;
    const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/x-tar') throw new SluiceError('VALIDATION_ERROR', 'A session bundle is sent as Content-Type: application/x-tar.', { reason: 'NOT_A_TAR' });
    const declared = Number(c.req.header('content-length') ?? Number.NaN);
    if (declared > options.importMaxBytes) {
      throw new SluiceError('PAYLOAD_TOO_LARGE', `The session bundle is larger than this server imports (${options.importMaxBytes} bytes); nothing was imported.`, { limitBytes: options.importMaxBytes });
    }
    const body = c.req.raw.body;
    if (body === null) throw new SluiceError('VALIDATION_ERROR', 'This route needs a session bundle as its body, and none was sent.', { reason: 'NOT_A_TAR' });
    const result = await store.importSession(principal.id, sessionId, bodyChunks(body), { maxBytes: options.importMaxBytes, ttlSeconds: options.ttlSeconds });
    return c.json(ok(`Imported ${result.mapping.length} artifact(s) into session ${sessionId}.`, result), 200);
  });

  app.openapi(getUsage, async (c) => {
    const principal = requireRole(c, 'reader');
    const usage = await callerUsage(store, principal);
    const sessionId = c.req.valid('query').sessionId;
    const data = sessionId === undefined ? usage : { ...usage, session: await store.sessionUsage(principal.id, sessionId) };
    return c.json(ok(`${usage.principal.artifacts} artifact(s), ${usage.principal.logicalBytes} of ${usage.principal.quotaBytes} bytes.`, data), 200);
  });
}

/** The caller's artifact usage against its quota; admins also see the workspace's. */
export async function callerUsage(store: ArtifactStore, principal: Principal) {
  const usage = await store.usage(principal.id);
  return hasRole(principal, 'admin') ? usage : { principal: usage.principal };
}
