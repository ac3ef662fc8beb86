/**
 * CopyOut against the test database (the embedded one when TEST_DATABASE_URL
 * is unset): the rows of a COPY arrive whole, counted and in order, with the
 * right bound on the longest; the rows sent before an error all arrive before
 * it (the last of them share the error's packet); a row longer than many
 * socket reads arrives whole; reads gather many of the server's 8 kB sends;
 * and the session goes on afterwards.
 */
import { describe, expect, it } from 'vitest';
import { CopyOut } from '../../../src/datasources/postgres/export/copy-out.ts';
import type { SourceChunk } from '../../../src/datasources/postgres/export/row-sources.ts';
import { testClient } from './test-client.ts';

const client = testClient();

/** Every chunk of the COPY of `select`, and the error that ended it (null when it ended cleanly). */
async function copy(select: string): Promise<{ chunks: SourceChunk[]; error: unknown }> {
  const chunks: SourceChunk[] = [];
  try {
    // A copy of each: a chunk is only lent until the next is asked for.
    for await (const chunk of client().query(new CopyOut(`COPY (${select}) TO STDOUT (FORMAT csv, FORCE_QUOTE *)`))) chunks.push({ ...chunk, bytes: Buffer.from(chunk.bytes) });
    return { chunks, error: null };
  } catch (error) {
    return { chunks, error };
  }
}

const text = (chunks: SourceChunk[]) => Buffer.concat(chunks.map((c) => c.bytes)).toString('utf8');
const rows = (chunks: SourceChunk[]) => chunks.reduce((n, c) => n + c.rows!, 0);

describe('CopyOut', () => {
  it('hands over every row, counted, in order, with a bound on the longest', async () => {
    const { chunks, error } = await copy(`select g, repeat('ab', g % 300) as s from generate_series(1, 30000) g`);
    expect(error).toBeNull();
    const expected = Array.from({ length: 30000 }, (_, i) => `"${i + 1}","${'ab'.repeat((i + 1) % 300)}"\n`);
    expect(text(chunks)).toBe(expected.join(''));
    expect(rows(chunks)).toBe(30000);
    // Chunks are whole socket reads, not one per row.
    expect(chunks.length).toBeLessThan(3000);
    for (const chunk of chunks) {
      const lines = chunk.bytes.length === 0 ? [] : Buffer.from(chunk.bytes).toString('utf8').split('\n').slice(0, -1);
      expect(lines).toHaveLength(chunk.rows!);
      expect(Math.max(...lines.map((l) => l.length + 1))).toBeLessThanOrEqual(chunk.longestRow);
    }
  });

  it('delivers every row sent before an error, then the error', async () => {
    // PostgreSQL holds a COPY's rows until 8 kB have gathered: these arrive in the error's own packet.
    const { chunks, error } = await copy(`select g, 1 / (g - 41) as x from generate_series(1, 100) g`);
    expect(error).toMatchObject({ code: '22012' });
    expect(rows(chunks)).toBe(40);
    expect(text(chunks).split('\n')[39]).toBe('"40","-1"');
    expect((await client().query('select 1 as one')).rows).toEqual([{ one: '1' }]);
  });

  it('hands over a row longer than many socket reads whole', async () => {
    const { chunks, error } = await copy(`select g, repeat('x', 3000000) || g as s from generate_series(1, 2) g`);
    expect(error).toBeNull();
    expect(rows(chunks)).toBe(2);
    expect(text(chunks)).toBe(`"1","${'x'.repeat(3_000_000)}1"\n"2","${'x'.repeat(3_000_000)}2"\n`);
    expect(Math.max(...chunks.map((c) => c.longestRow))).toBe(3_000_000 + 8);
  });

  it('gathers the server’s 8 kB sends into longer reads', async () => {
    // About 12 MB: read as they come, the server's sends would arrive one a read, 8 kB each.
    const { chunks, error } = await copy(`select g, repeat('x', 100) as s from generate_series(1, 100000) g`);
    expect(error).toBeNull();
    expect(rows(chunks)).toBe(100_000);
    const bytes = chunks.reduce((n, c) => n + c.bytes.length, 0);
    // A pause of 1 ms after a short read lets the kernel gather many sends. Measured here: 168 kB a read on
    // average with the pause, 23 kB without it (this consumer copies each chunk, so some reads gather anyway).
    expect(bytes / chunks.length).toBeGreaterThan(48 * 1024);
  });

  it('leaves the session usable for the next statement, in a transaction too', async () => {
    await client().query('BEGIN READ ONLY');
    const { chunks } = await copy('select 1');
    expect(text(chunks)).toBe('"1"\n');
    expect((await client().query('select 2 as two')).rows).toEqual([{ two: '2' }]);
    await client().query('COMMIT');
  });
});
