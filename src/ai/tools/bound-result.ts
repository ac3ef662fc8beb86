/**
 * The size budget of a tool result, one function for both surfaces (the
 * agent's SLUICE_AI_TOOL_MAX_CHARS, MCP's SLUICE_MCP_MAX_CHARS): items of the
 * tool's list (rows, tables, fields) are dropped from the end until the
 * result, as the surface measures it, fits; the result then says how many
 * were dropped and what to do. Everything else (the artifact handle, the
 * completeness block) is kept whole. Long values were already cut, as the
 * preview cuts them (SLUICE_PREVIEW_CELL_CHARS, `cutCells`), so the budget
 * drops rows only when the cut rows still do not fit.
 */
import { z } from 'zod';

export const TruncatedForSize = z
  .strictObject({
    list: z.string().describe('The list that was shortened.'),
    shown: z.number().int(),
    dropped: z.number().int(),
    note: z.string(),
  })
  .describe('Present only when items were dropped from the end of the list to keep the result under its size budget.');

export type Bounded<T> = T & { truncatedForSize?: z.output<typeof TruncatedForSize> };

/** `measure` is the size of the result as the surface sends it (JSON text for MCP, the fenced text for the agent). */
export function boundResult<T extends Record<string, unknown>>(result: T, list: string | null, maxChars: number, measure: (result: unknown) => number): Bounded<T> {
  const items = list === null ? undefined : result[list];
  if (measure(result) <= maxChars || list === null || !Array.isArray(items)) return result;
  // Only a kept artifact holds what was dropped; a result read only in part says nothing of one.
  const kept = (result.artifact as { decision?: unknown } | null | undefined)?.decision === 'CREATED';
  // The cells a preview's cell cut listed go with their rows.
  const cutCells = list === 'rows' && Array.isArray(result.cutCells) ? (result.cutCells as { row: number }[]) : null;
  const cut = (keep: number): Bounded<T> => ({
    ...result,
    [list]: items.slice(0, keep),
    ...(cutCells === null ? {} : { cutCells: cutCells.filter((c) => c.row < keep) }),
    truncatedForSize: {
      list,
      shown: keep,
      dropped: items.length - keep,
      note: `${items.length - keep} of ${items.length} ${list} were dropped from the end to keep this result under ${maxChars} characters. Ask for fewer or narrower ones (a smaller limit, fewer columns, a filter) to see them${kept ? '; the artifact holds the complete result' : ''}.`,
    },
  });
  // The largest prefix that fits; with none, the empty list (the rest of the result is never cut).
  let low = 0;
  let high = items.length - 1;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (measure(cut(mid)) <= maxChars) low = mid;
    else high = mid - 1;
  }
  return cut(low);
}
