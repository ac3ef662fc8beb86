/**
 * The folder engine's result as the export core's chunk source
 * (table-source.ts) fetches ahead of its consumer, one fetch after another
 * on the engine; once a fetch finds the end of the result (or fails), no
 * further fetch reaches the engine: each is a trip through the thread pool
 * that the stream waits for before the connection may close.
 */
import type { DuckDBConnection, DuckDBDataChunk, DuckDBPreparedStatement } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { openTableSource } from '../../../src/datasources/files/export/table-source.ts';

/** A prepared statement whose result has `chunks` chunks of 2,048 rows, then the end or, with `failAt`, an error. */
function fakeStatement(chunks: number, failAt?: number) {
  const calls = { fetches: 0 };
  const result = {
    async fetchChunk(): Promise<DuckDBDataChunk | null> {
      const i = calls.fetches++;
      if (i === failAt) throw new Error('INTERRUPT Error: Interrupted!');
      return i < chunks ? ({ rowCount: 2048 } as DuckDBDataChunk) : null;
    },
  };
  // Begun as the source begins it: a pending query, then its result.
  const prepared = { startStream: () => ({ getResult: async () => result }) } as unknown as DuckDBPreparedStatement;
  return { prepared, calls };
}

function source(prepared: DuckDBPreparedStatement, rowLimit: number) {
  const connection = { interrupt: () => undefined } as unknown as DuckDBConnection;
  return openTableSource({ connection, prepared, types: [], rowLimit, onEnd: () => undefined });
}

describe('the chunk source of a folder export', () => {
  it('asks the engine once for the end of its result, however far ahead it fetches', async () => {
    const { prepared, calls } = fakeStatement(3);
    let rows = 0;
    for await (const chunk of source(prepared, 10_000_001)) rows += chunk.rowCount;
    expect(rows).toBe(3 * 2048);
    expect(calls.fetches).toBe(4);
  });

  it('asks the engine nothing more once a fetch failed, and reports that failure', async () => {
    const { prepared, calls } = fakeStatement(10, 2);
    let rows = 0;
    await expect(async () => {
      for await (const chunk of source(prepared, 10_000_001)) rows += chunk.rowCount;
    }).rejects.toThrow('Interrupted');
    expect(rows).toBe(2 * 2048);
    expect(calls.fetches).toBe(3);
  });

  it('stops at the row limit inside a chunk without fetching past what the limit can use', async () => {
    const { prepared, calls } = fakeStatement(10);
    let rows = 0;
    for await (const chunk of source(prepared, 3000)) rows += chunk.rowCount;
    expect(rows).toBe(3000);
    expect(calls.fetches).toBe(2);
  });
});
