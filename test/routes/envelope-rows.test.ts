/**
 * A page's rows travel as JSON text (ReadPage.rowsJson) and are joined into
 * the answer as they are: the answer must be byte for byte what
 * JSON.stringify writes of the same envelope with the rows parsed, whatever
 * the values hold.
 */
import { describe, expect, it } from 'vitest';
import { ok, okJsonWithRows } from '../../src/routes/common/envelope.ts';

const HOSTILE: unknown[][] = [
  ['1', 'plain', null, true, 1.5, -0, 1e21],
  ['"quoted", with \\ backslashes and $& $1 $$ $` replacement patterns', '\u0000rows-placeholder-like', '\u2028\u2029 line separators'],
  ['é 漢字 🚀 \ud800 lone surrogate', '[1,2]', { nested: ['a', { b: null }] }],
  [],
];

describe('okJsonWithRows', () => {
  it('writes what JSON.stringify writes of the parsed rows', () => {
    const data = { columns: [{ name: 'a"b', type: 'text' }], nextCursor: 'c$&1' };
    const expected = JSON.stringify(ok('Rows 1-4; no more rows.', { columns: data.columns, rows: HOSTILE, nextCursor: data.nextCursor }));
    const text = okJsonWithRows('Rows 1-4; no more rows.', { columns: data.columns, rows: HOSTILE.map((row) => JSON.stringify(row)), nextCursor: data.nextCursor });
    expect(text).toBe(expected);
    expect(JSON.parse(text).data.rows).toEqual(JSON.parse(JSON.stringify(HOSTILE)));
  });

  it('writes no rows as an empty array, and keeps the order of the fields', () => {
    const text = okJsonWithRows('No rows match.', { columns: [], rows: [], nextCursor: null });
    expect(text).toBe('{"success":true,"summary":"No rows match.","data":{"columns":[],"rows":[],"nextCursor":null},"errorCode":null}');
  });

  it('is not fooled by a summary or column that spells a placeholder', () => {
    const sneaky = JSON.stringify('\u0000rows-');
    const text = okJsonWithRows(sneaky, { columns: [{ name: sneaky, type: 'text' }], rows: ['["x"]'], nextCursor: null });
    expect(JSON.parse(text)).toEqual(ok(sneaky, { columns: [{ name: sneaky, type: 'text' }], rows: [['x']], nextCursor: null }));
  });
});
