/**
 * releaseSpentChunks frees the native memory of spent DuckDB result chunks
 * (release-chunks.ts): read and dropped one after another, as an export
 * spends them, 1M rows of about 200 bytes hold over 200 MB when nothing
 * collects them (the stream allocates too little JavaScript for a
 * collection to run by itself), and stay within a few chunks' worth when
 * it is called every 50 chunks, as a part of an export spans about 75.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { releaseSpentChunks } from '../../../src/worker/export/release-chunks.ts';

const MB = 1024 * 1024;

describe('releaseSpentChunks', () => {
  it('frees the chunks a stream has spent, which no collection has seen yet', async () => {
    const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
    const connection = await instance.connect();
    try {
      const result = await connection.stream(`SELECT repeat('x', 200) || range AS s, range AS n FROM range(1000000)`);
      const before = process.memoryUsage.rss();
      let peak = before;
      for (let i = 1; ; i++) {
        const chunk = await result.fetchChunk();
        if (chunk === null || chunk.rowCount === 0) break;
        if (i % 50 === 0) releaseSpentChunks();
        peak = Math.max(peak, process.memoryUsage.rss());
      }
      // 50 chunks of 2,048 rows hold about 22 MB; all of them, about 220 MB.
      expect((peak - before) / MB).toBeLessThan(100);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });
});
