/**
 * The preview's cell cut for rows already in memory (an artifact page or
 * aggregate a tool puts in front of a model), the same cut the preview's
 * DuckDB read makes (worker/export/preview-bounds-sql.ts): a value longer
 * than `maxChars` characters (Unicode code points) of what a caller meets (a
 * string's own characters; the JSON text of an array or other value) is cut
 * to its first `maxChars`, a string, and listed with its whole length.
 */

/** A cell whose value was cut: its row and column index in the rows it was cut in, and the whole value's length in characters. */
export interface CutCell {
  row: number;
  column: number;
  chars: number;
}

/** The first `max` code points of `text`, and how many code points it has in all. */
function codePoints(text: string, max: number): { head: string; chars: number } {
  let chars = 0;
  let end = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by its low surrogate is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    chars++;
    if (chars === max) end = i + 1;
  }
  return { head: chars > max ? text.slice(0, end) : text, chars };
}

/** The rows with every value over `maxChars` cut, and the cells cut (row and column indexes in `rows`). */
export function cutLongCells(rows: unknown[][], maxChars: number): { rows: unknown[][]; cutCells: CutCell[] } {
  const cutCells: CutCell[] = [];
  const out = rows.map((row, r) =>
    row.map((value, column) => {
      // SQL NULL is never cut; any other value is measured as its string, or its JSON text.
      if (value === null || value === undefined) return value;
      const text = typeof value === 'string' ? value : JSON.stringify(value);
      // UTF-16 units are never fewer than code points: a text this short is not over the bound.
      if (text.length <= maxChars) return value;
      const { head, chars } = codePoints(text, maxChars);
      if (chars <= maxChars) return value;
      cutCells.push({ row: r, column, chars });
      return head;
    }),
  );
  return { rows: out, cutCells };
}
