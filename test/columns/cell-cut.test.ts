/** The in-memory cell cut the tools use, cutting as the preview does: code points, JSON text for non-strings, NULL never. */
import { describe, expect, it } from 'vitest';
import { cutLongCells } from '../../src/columns/cell-cut.ts';

describe('cutLongCells', () => {
  it('cuts strings to their first characters, counting code points, and lists each cut with its whole length', () => {
    const rows = [
      ['short', '😀'.repeat(5), null],
      ['x'.repeat(4), 'é'.repeat(3), 12345],
    ];
    expect(cutLongCells(rows, 3)).toEqual({
      rows: [
        ['sho', '😀'.repeat(3), null],
        ['xxx', 'ééé', '123'],
      ],
      cutCells: [
        { row: 0, column: 0, chars: 5 },
        { row: 0, column: 1, chars: 5 },
        { row: 1, column: 0, chars: 4 },
        { row: 1, column: 2, chars: 5 },
      ],
    });
  });

  it('measures an array by its JSON text and cuts it to a string of that text', () => {
    const { rows, cutCells } = cutLongCells([[[1, 2, 3, 4, 5]]], 4);
    expect(rows).toEqual([['[1,2']]);
    expect(cutCells).toEqual([{ row: 0, column: 0, chars: 11 }]);
  });

  it('leaves values at the bound whole and copies nothing it does not cut', () => {
    const rows = [['abc', '😀😀😀', [1]]];
    expect(cutLongCells(rows, 3)).toEqual({ rows, cutCells: [] });
  });
});
