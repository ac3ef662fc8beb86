/** The shapes of schema browsing, shared by the schema routes and the AI and MCP tools. */
import { z } from '@hono/zod-openapi';
import { TABLE_KINDS } from '../vocabulary.ts';

export const TableSummary = z
  .strictObject({
    schema: z.string(),
    name: z.string(),
    kind: z.enum(TABLE_KINDS),
    estimatedRows: z.number().int().nullable(),
  })
  .openapi('TableSummary');

export const TableDetail = TableSummary.extend({
  columns: z.array(z.strictObject({ name: z.string(), type: z.string(), nullable: z.boolean() })),
  primaryKey: z.array(z.string()),
  foreignKeys: z.array(
    z.strictObject({ name: z.string(), columns: z.array(z.string()), references: z.strictObject({ schema: z.string(), table: z.string(), columns: z.array(z.string()) }) }),
  ),
}).openapi('TableDetail');
