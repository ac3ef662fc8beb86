/** Request and response schemas of the admins' store maintenance: a collection round now, and the store check. */
import { z } from '@hono/zod-openapi';
import { envelope } from '../common/envelope.ts';

export const MaintenanceData = z
  .object({
    ran: z.boolean().openapi({ description: 'False when another replica holds the collection lease: this round released nothing; try again shortly.' }),
    blobs: z.number().int().openapi({ description: 'Stored contents whose bytes were removed (unreferenced past the grace period).' }),
    bytes: z.number().int().openapi({ description: 'Bytes those blobs held.' }),
    tombstones: z.number().int().openapi({ description: 'Deleted or expired artifacts forgotten (past their retention).' }),
    expired: z.number().int().openapi({ description: 'Artifacts past their TTL that this round made tombstones.' }),
    orphans: z.number().int().openapi({ description: 'Uploads no blob referenced, removed.' }),
    more: z.boolean().openapi({ description: 'A batch limit stopped the round: more is waiting for the next one.' }),
  })
  .openapi('MaintenanceRound');

export const MaintenanceEnvelope = envelope('MaintenanceEnvelope', MaintenanceData);

export const StoreCheckRequest = z
  .object({
    cursor: z.string().max(1000).optional().openapi({ description: 'The `nextCursor` of the round before; none starts the walk.' }),
    limit: z.number().int().min(1).max(1000).optional().openapi({ description: 'Blobs (or stored uploads) this round examines; default 100.' }),
  })
  .strict()
  .openapi('StoreCheckRequest');

const PartFinding = z.object({ blob: z.string(), location: z.string(), name: z.string(), sha256: z.string() }).openapi('StoreCheckPart');
const OrphanFinding = z.object({ location: z.string(), name: z.string().optional() }).openapi('StoreCheckOrphan');

export const StoreCheckData = z
  .object({
    checked: z.object({ blobs: z.number().int(), parts: z.number().int(), locations: z.number().int() }),
    missing: z.array(PartFinding).openapi({ description: 'Parts the catalog names that are not stored.' }),
    corrupt: z.array(PartFinding).openapi({ description: 'Stored parts whose size or SHA-256 differ from the catalog\u2019s.' }),
    orphaned: z.array(OrphanFinding).openapi({ description: 'Stored uploads no blob references (older than the grace period), or stray files inside a blob\u2019s upload.' }),
    nextCursor: z.string().nullable().openapi({ description: 'Pass back to continue the walk; null when it is over.' }),
  })
  .openapi('StoreCheckRound');

export const StoreCheckEnvelope = envelope('StoreCheckEnvelope', StoreCheckData);
