/** Response schema of /api/me. */
import { z } from '@hono/zod-openapi';
import { AUTH_KINDS, ROLES } from '../../vocabulary.ts';
import { envelope } from '../common/envelope.ts';
import { UsageData } from '../sessions/schemas.ts';

export const MeEnvelope = envelope(
  'MeEnvelope',
  z.object({
    principal: z.string().openapi({ description: 'Who the caller is: a token\u2019s principal, or an identity provider\u2019s user behind SLUICE_OIDC_PRINCIPAL_PREFIX (oidc:\u2026).' }),
    roles: z.array(z.enum(ROLES)).openapi({ description: 'The roles granted; the highest decides what the caller may do (reader < analyst < admin).' }),
    datasources: z.array(z.string()).openapi({ description: 'The datasource ids the caller may use; "*" for all.' }),
    auth: z.enum(AUTH_KINDS).openapi({ description: 'How the caller signed in: a configured token, or an identity provider\u2019s JWT.' }),
    usage: UsageData,
  }),
);
