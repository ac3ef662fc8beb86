/** Request and response schemas of /api/sessions and /api/usage. */
import { z } from '@hono/zod-openapi';
import { SessionId } from '../../contract/results.ts';
import { BUNDLE_REJECTIONS } from '../../vocabulary.ts';
import { envelope } from '../common/envelope.ts';

export const SessionParam = z.object({ id: SessionId.openapi({ param: { name: 'id', in: 'path' } }) });

export const SessionCopyRequest = z
  .object({
    targetSessionId: SessionId,
    artifactIds: z
      .array(z.string().min(1).max(200))
      .min(1)
      .max(1000)
      .optional()
      .openapi({ description: 'Copy only these artifacts of the source session. Any id that is not a readable artifact of the caller in that session is NOT_FOUND, and nothing is copied.' }),
  })
  .strict()
  .openapi('SessionCopyRequest');

const Mapping = z.object({ mapping: z.array(z.object({ sourceArtifactId: z.string(), targetArtifactId: z.string() })) });

export const SessionCopyEnvelope = envelope('SessionCopyEnvelope', Mapping);

export const SessionImportEnvelope = envelope('SessionImportEnvelope', Mapping);

export const SessionRetireEnvelope = envelope('SessionRetireEnvelope', z.object({ releasedArtifacts: z.number().int(), releasedBytes: z.number().int() }));

export const SessionSummary = z
  .object({ sessionId: z.string(), artifacts: z.number().int(), logicalBytes: z.number().int(), lastUsedAt: z.string().openapi({ description: 'When the session\u2019s newest readable artifact was made.' }) })
  .openapi('SessionSummary');

export const SessionListEnvelope = envelope('SessionListEnvelope', z.object({ sessions: z.array(SessionSummary) }));

export const UsageQuery = z.object({ sessionId: SessionId.optional().openapi({ param: { name: 'sessionId', in: 'query' }, description: 'Also answer what this session of the caller holds.' }) });

const SessionUsage = z.object({ sessionId: z.string(), artifacts: z.number().int(), logicalBytes: z.number().int() });

/** The caller's usage (and the workspace's, for admins): the data of /api/usage and the `usage` of /api/me. */
export const UsageData = z
  .object({
    principal: z.object({ artifacts: z.number().int(), logicalBytes: z.number().int(), quotaBytes: z.number().int() }),
    workspace: z.object({ artifacts: z.number().int(), physicalBytes: z.number().int(), quotaBytes: z.number().int() }).optional(),
    session: SessionUsage.optional().openapi({ description: 'With `?sessionId=`: the readable artifacts of that session of the caller.' }),
  })
  .openapi('Usage');

export const UsageEnvelope = envelope('UsageEnvelope', UsageData);

export const TarFile = z.string().openapi({ format: 'binary' });

export const BUNDLE_DESCRIPTION = `A tar archive: \`manifest.json\` first ({"format": "sluice-session", "version": 1, "sessionId", "exportedAt", "artifacts": [{"id", "sql", "datasource", "columns", "rowCount", "sizeBytes", "coverage", "boundedBy", "createdAt", "expiresAt", "parts": [{"name", "sha256", "bytes", "rows"}]}]}), then each distinct part once as \`parts/<sha256>.parquet\`.`;

export const REJECTION_DESCRIPTION = `A bad bundle: \`details.reason\` is one of ${BUNDLE_REJECTIONS.map((r) => `\`${r}\``).join(', ')}; nothing was imported.`;
