/**
 * A streamed body counted as the server takes it (the audit of a download
 * records these bytes): read to its end, cut off by the reader, or failed
 * by its source, it settles once with what was taken.
 */
import { describe, expect, it } from 'vitest';
import { SluiceError } from '../../src/errors.ts';
import { countSentBytes } from '../../src/routes/common/sent-bytes.ts';

function chunks(sizes: number[], failWith?: unknown): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next < sizes.length) controller.enqueue(new Uint8Array(sizes[next++]!));
      else if (failWith !== undefined) controller.error(failWith);
      else controller.close();
    },
  });
}

async function readAll(body: ReadableStream<Uint8Array>): Promise<number> {
  const reader = body.getReader();
  let bytes = 0;
  for (let next = await reader.read(); !next.done; next = await reader.read()) bytes += next.value.byteLength;
  return bytes;
}

describe('a counted body', () => {
  it('passes every byte on and counts them once it ends', async () => {
    const { body, sent } = countSentBytes(chunks([10, 0, 300, 7]));
    expect(await readAll(body)).toBe(317);
    expect(await sent).toEqual({ bytes: 317, whole: true, errorCode: null });
  });

  it('counts only what the reader took when it cuts the body off, and cancels the source', async () => {
    let cancelled: unknown = null;
    let pulls = 0;
    const source = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls++;
        controller.enqueue(new Uint8Array(1000));
      },
      cancel(reason) {
        cancelled = reason;
      },
    });
    const { body, sent } = countSentBytes(source);
    const reader = body.getReader();
    await reader.read();
    await reader.read();
    await reader.cancel('client gone');
    expect(await sent).toEqual({ bytes: 2000, whole: false, errorCode: null });
    expect(cancelled).toBe('client gone');
    // Nothing read ahead of the reader: the source gave its chunks only as they were asked for (and its own queue's one).
    expect(pulls).toBeLessThanOrEqual(3);
  });

  it('counts a body cancelled while a read was pending as cut off, though that read ends as done', async () => {
    let release!: () => void;
    const source = new ReadableStream<Uint8Array>({
      // The second chunk never comes before the cancel: the server's read waits on it.
      async pull(controller) {
        controller.enqueue(new Uint8Array(100));
        await new Promise<void>((resolve) => (release = resolve));
      },
      cancel() {
        release();
      },
    });
    const { body, sent } = countSentBytes(source);
    const reader = body.getReader();
    await reader.read();
    const pending = reader.read();
    await new Promise((resolve) => setTimeout(resolve, 10));
    await reader.cancel('client gone');
    expect((await pending).done).toBe(true);
    expect(await sent).toEqual({ bytes: 100, whole: false, errorCode: null });
  });

  it('reports a source that failed, with the code of a SluiceError', async () => {
    const { body, sent } = countSentBytes(chunks([64, 64], new SluiceError('ARTIFACT_CORRUPT', 'The stored artifact failed its integrity check.')));
    await expect(readAll(body)).rejects.toThrow('integrity');
    expect(await sent).toEqual({ bytes: 128, whole: false, errorCode: 'ARTIFACT_CORRUPT' });
  });

  it('reports another failure without a code', async () => {
    const { body, sent } = countSentBytes(chunks([5], new Error('disk went away')));
    await expect(readAll(body)).rejects.toThrow('disk went away');
    expect(await sent).toEqual({ bytes: 5, whole: false, errorCode: null });
  });
});
