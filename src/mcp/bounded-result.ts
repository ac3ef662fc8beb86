/**
 * MCP clients reject large tool results, so every result is held under a
 * size: rows are dropped from the end until the JSON fits, and the result
 * says so (rows shown, rows dropped, how to get the rest).
 */
export function bounded(result: Record<string, unknown>, maxChars: number): Record<string, unknown> {
  let text = JSON.stringify(result);
  if (text.length <= maxChars || !Array.isArray(result.rows)) return result;
  const rows = result.rows as unknown[];
  let keep = rows.length;
  let trimmed: Record<string, unknown> = result;
  while (keep > 0 && text.length > maxChars) {
    keep = Math.floor(keep * Math.min(0.9, maxChars / text.length));
    trimmed = {
      ...result,
      rows: rows.slice(0, keep),
      truncatedForSize: { shownRows: keep, droppedRows: rows.length - keep, note: `Rows were dropped to keep this result under ${maxChars} characters; read the artifact with a smaller limit or fewer columns for the rest.` },
    };
    text = JSON.stringify(trimmed);
  }
  return trimmed;
}
