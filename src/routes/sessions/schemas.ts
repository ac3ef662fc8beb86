/** Request and response schemas of /api/sessions and /api/usage. */
import { z } from '@hono/zod-openapi';
import { SessionId } from '../../contract/results.ts';
import { envelope } from '../common/envelope.ts';

export const SessionParam = z.object({ id: SessionId.openapi({ param: { name: 'id', in: 'path' } }) });

export const SessionCopyRequest = z.object({ targetSessionId: SessionId }).strict().openapi('SessionCopyRequest');

export const SessionCopyEnvelope = envelope('SessionCopyEnvelope', z.object({ mapping: z.array(z.object({ sourceArtifactId: z.string(), targetArtifactId: z.string() })) }));

export const SessionRetireEnvelope = envelope('SessionRetireEnvelope', z.object({ releasedArtifacts: z.number().int(), releasedBytes: z.number().int() }));

/** The caller's usage (and the workspace's, for admins): the data of /api/usage and the `usage` of /api/me. */
export const UsageData = z
  .object({
    principal: z.object({ artifacts: z.number().int(), logicalBytes: z.number().int(), quotaBytes: z.number().int() }),
    workspace: z.object({ artifacts: z.number().int(), physicalBytes: z.number().int(), quotaBytes: z.number().int() }).optional(),
  })
  .openapi('Usage');

export const UsageEnvelope = envelope('UsageEnvelope', UsageData);
