/** Sessions (reference copy, retirement) and usage. */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { hasRole } from '../../auth/principals.ts';
import { requireRole, type AppEnv } from '../../auth/middleware.ts';
import type { ArtifactStore } from '../../artifacts/types.ts';
import { envelope, errorResponses, ok } from '../common/envelope.ts';
import { STORE_FAILURES } from '../common/failures.ts';
import { SessionId } from '../../contract/results.ts';
import { tagged } from '../common/tags.ts';

const SessionParam = z.object({ id: SessionId.openapi({ param: { name: 'id', in: 'path' } }) });

const copyRoute = createRoute({
  operationId: 'copySession',
  method: 'post',
  path: '/api/sessions/{id}/copy',
  tags: tagged('Sessions'),
  summary: 'Copy a session\u2019s artifacts into another session (references only, never bytes)',
  request: {
    params: SessionParam,
    body: { required: true, content: { 'application/json': { schema: z.object({ targetSessionId: SessionId }).strict().openapi('SessionCopyRequest') } } },
  },
  responses: {
    200: {
      description: 'The new artifact ids.',
      content: { 'application/json': { schema: envelope('SessionCopyEnvelope', z.object({ mapping: z.array(z.object({ sourceArtifactId: z.string(), targetArtifactId: z.string() })) })) } },
    },
    ...errorResponses('QUOTA_EXCEEDED', ...STORE_FAILURES),
  },
});

const retireRoute = createRoute({
  operationId: 'retireSession',
  method: 'delete',
  path: '/api/sessions/{id}',
  tags: tagged('Sessions'),
  summary: 'Retire a session, releasing only its own references',
  request: { params: SessionParam },
  responses: {
    200: {
      description: 'What was released.',
      content: { 'application/json': { schema: envelope('SessionRetireEnvelope', z.object({ releasedArtifacts: z.number().int(), releasedBytes: z.number().int() })) } },
    },
    ...errorResponses(...STORE_FAILURES),
  },
});

const usageRoute = createRoute({
  operationId: 'getUsage',
  method: 'get',
  path: '/api/usage',
  tags: tagged('Sessions'),
  summary: 'Artifact usage of the caller (and of the workspace, for admins)',
  responses: {
    200: {
      description: 'Usage.',
      content: {
        'application/json': {
          schema: envelope(
            'UsageEnvelope',
            z.object({
              principal: z.object({ artifacts: z.number().int(), logicalBytes: z.number().int(), quotaBytes: z.number().int() }),
              workspace: z.object({ artifacts: z.number().int(), physicalBytes: z.number().int(), quotaBytes: z.number().int() }).optional(),
            }),
          ),
        },
      },
    },
    ...errorResponses(...STORE_FAILURES),
  },
});

export function registerSessionRoutes(app: OpenAPIHono<AppEnv>, store: ArtifactStore, ttlSeconds: number): void {
  app.openapi(copyRoute, async (c) => {
    const principal = requireRole(c, 'reader');
    const result = await store.copySession(principal.id, c.req.valid('param').id, c.req.valid('json').targetSessionId, ttlSeconds);
    return c.json(ok(`Copied ${result.mapping.length} artifact reference(s).`, result), 200);
  });

  app.openapi(retireRoute, async (c) => {
    const principal = requireRole(c, 'reader');
    const result = await store.retireSession(principal.id, c.req.valid('param').id);
    return c.json(ok(`Released ${result.releasedArtifacts} artifact(s), ${result.releasedBytes} bytes.`, result), 200);
  });

  app.openapi(usageRoute, async (c) => {
    const principal = requireRole(c, 'reader');
    const usage = await store.usage(principal.id);
    const data = hasRole(principal, 'admin') ? usage : { principal: usage.principal };
    return c.json(ok(`${usage.principal.artifacts} artifact(s), ${usage.principal.logicalBytes} of ${usage.principal.quotaBytes} bytes.`, data), 200);
  });
}
