/**
 * Writes a download file inside a worker: a DuckDB COPY for Parquet and CSV,
 * or one line per row for JSONL (the row's JSON text comes from DuckDB ready
 * made, so rows are never parsed here). Stored parts are checked against
 * their SHA-256 first, so a damaged artifact fails loudly instead of being
 * served. A write that fails leaves no file behind.
 */
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, openSync, rmSync, statSync, writeSync } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import { SluiceError } from '../errors.ts';
import type { WriteFileResult, WriteFileTask } from './protocol.ts';

async function sha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file, { highWaterMark: 1024 * 1024 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export async function writeFile(duck: DuckDBConnection, task: WriteFileTask): Promise<WriteFileResult> {
  for (const part of task.verify) {
    if ((await sha256(part.path)) !== part.sha256) {
      throw new SluiceError('ARTIFACT_CORRUPT', 'The stored artifact failed its integrity check and was not served.');
    }
  }
  try {
    if (task.mode === 'copy') await duck.run(task.sql, task.params);
    else await writeLines(duck, task);
  } catch (error) {
    // A file cut short by a full disk would keep the disk full until the next start sweeps it.
    rmSync(task.file, { force: true });
    throw error;
  }
  return { bytes: statSync(task.file).size };
}

async function writeLines(duck: DuckDBConnection, task: WriteFileTask): Promise<void> {
  const fd = openSync(task.file, 'w');
  try {
    const result = await duck.stream(task.sql, task.params);
    for (;;) {
      const chunk = await result.fetchChunk();
      if (chunk === null || chunk.rowCount === 0) break;
      const lines = chunk.getColumnVector(0);
      let text = '';
      for (let i = 0; i < chunk.rowCount; i++) text += `${String(lines.getItem(i))}\n`;
      writeSync(fd, text);
    }
  } finally {
    closeSync(fd);
  }
}
