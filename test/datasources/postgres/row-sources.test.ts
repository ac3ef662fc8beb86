/**
 * The two row sources write the same bytes: the cursor source (bound
 * parameters) quotes exactly where PostgreSQL's COPY quotes, so a byte cap
 * measures a result the same whichever source serves it, and DuckDB reads
 * NULL and the empty string apart on both.
 */
import { describe, expect, it } from 'vitest';
import { openCopySource, openCursorSource, type RowSource } from '../../../src/datasources/postgres/export/row-sources.ts';
import { csvRecord } from '../../../src/worker/export/csv-record.ts';
import { testClient } from './test-client.ts';

const client = testClient();

async function bytesOf(source: RowSource): Promise<string> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of source) chunks.push(chunk.bytes);
  return Buffer.concat(chunks).toString('utf8');
}

const noCancel = () => undefined;

/** Values whose quoting differs: NULL, empty, spaces, delimiters, quotes, line breaks, COPY's end marker, look-alikes of NULL. */
const AWKWARD = [null, '', ' ', ' a ', 'plain', 'x,y', 'a"b', '"', 'line\nbreak', 'cr\rhere', '\\.', '\\N', 'NULL', 'tab\there', 'é 🎉', '0044-03-15 BC'];

describe('row sources', () => {
  it('the cursor source writes what COPY writes, for every awkward value in one and in two columns', async () => {
    const single = `select v from unnest($1::text[]) with ordinality t(v, n) order by n`;
    const pair = `select v, v || '' as w, n from unnest($1::text[]) with ordinality t(v, n) order by n`;
    for (const select of [single, pair]) {
      const literal = `ARRAY[${AWKWARD.map((v) => (v === null ? 'NULL' : `'${v.replaceAll("'", "''")}'`)).join(',')}]::text[]`;
      const viaCopy = await bytesOf(openCopySource(client(), select.replace('$1::text[]', literal), noCancel));
      const viaCursor = await bytesOf(openCursorSource(client(), select, [AWKWARD], noCancel));
      expect(viaCursor).toBe(viaCopy);
    }
  });

  it('quotes only what must be quoted, and `\\.` only when it stands alone on its line', () => {
    expect(csvRecord([null, '', 'a', 'x,y', 'say "hi"'])).toBe(',"",a,"x,y","say ""hi"""\n');
    expect(csvRecord(['\\.'])).toBe('"\\."\n');
    expect(csvRecord(['\\.', '1'])).toBe('\\.,1\n');
  });
});
