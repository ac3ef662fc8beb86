/**
 * The shapes of a query's answer that every surface shares: the HTTP routes,
 * the AI tools and the MCP tools all say a column, a completeness and an
 * artifact decision the same way, so they are defined once, here.
 */
import { z } from '@hono/zod-openapi';
import { CAPS, COMPLETENESS_STATUSES, COVERAGES, DECISIONS, LIMIT_SOURCES, PREVIEW_BOUNDS } from '../vocabulary.ts';

export const Column = z.object({ name: z.string(), type: z.string().openapi({ example: 'int8' }) }).openapi('Column');

export const Cap = z.enum(CAPS);

export const Completeness = z
  .object({
    status: z.enum(COMPLETENESS_STATUSES),
    returnedRows: z.number().int(),
    totalRows: z.number().int().nullable().openapi({ description: 'Null while unknown (still running, or a cap stopped the result).' }),
    boundedBy: z
      .enum(PREVIEW_BOUNDS)
      .nullable()
      .openapi({ description: 'The limit that made the preview less than the whole result: a cap on the result (maxRows, maxBytes, maxDuration), previewRows, or previewBytes (the preview\u2019s size bounds, SLUICE_PREVIEW_BYTES and SLUICE_PREVIEW_CELL_CHARS, left rows out or cut a value; preview.cutCells lists the cut values).' }),
    limitSetBy: z.enum(LIMIT_SOURCES).nullable().openapi({ description: 'Who set the limit named in boundedBy.' }),
  })
  .openapi('Completeness');

/** A preview cell cut to SLUICE_PREVIEW_CELL_CHARS. */
export const CutCell = z
  .object({
    row: z.number().int().openapi({ description: 'Index of the row in preview.rows.' }),
    column: z.number().int().openapi({ description: 'Index of the column in preview.columns (names may repeat).' }),
    chars: z.number().int().openapi({ description: 'The whole value\u2019s length in characters (of a string value; of the JSON text of any other); the artifact holds it whole.' }),
  })
  .openapi('CutCell');

export const Preview = z
  .object({
    columns: z.array(Column),
    rows: z.array(z.array(z.unknown())),
    cutCells: z.array(CutCell).openapi({
      description:
        'The cells whose value was longer than SLUICE_PREVIEW_CELL_CHARS characters and is cut to them in this preview (a string keeps its first characters; another value becomes a string of the first characters of its JSON text). Artifacts, reads and downloads hold every value whole.',
    }),
  })
  .openapi('Preview', { description: 'The first rows, within SLUICE_PREVIEW_BYTES bytes of JSON (cut at a row boundary).' });

export const SessionId = z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/).openapi({ example: 'default' });

export const Limits = z
  .object({
    maxRows: z.number().int().min(1).optional(),
    maxBytes: z.number().int().min(1).optional().openapi({ description: 'Bytes of result data the artifact may hold, measured as PostgreSQL\'s `COPY … (FORMAT csv)` writes the rows.' }),
    maxDurationMs: z.number().int().min(1).optional(),
  })
  .strict()
  .openapi('Limits', { description: 'Lower the server caps for this query; higher values are ignored.' });

export const ArtifactDecision = z
  .object({
    decision: z.enum(DECISIONS),
    reason: z.string().optional().openapi({ description: 'A stable code, for every decision but CREATED (PREVIEW_COMPLETE, MATERIALIZE_NEVER, QUOTA_EXCEEDED, QUERY_CANCELLED, or the error code).' }),
    message: z.string().optional(),
    coverage: z.enum(COVERAGES).optional(),
    id: z.string().optional(),
    format: z.literal('parquet').optional(),
    rowCount: z.number().int().optional(),
    sizeBytes: z.number().int().optional(),
    expiresAt: z.string().optional(),
  })
  .openapi('ArtifactDecision');
