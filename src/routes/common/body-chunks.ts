/**
 * A request body (a web ReadableStream) as an async iterable of chunks, read
 * only as fast as the consumer takes them; a consumer that stops early
 * cancels the body, so an upload refused half-way is not read to its end.
 */
export async function* bodyChunks(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  let done = false;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) {
        done = true;
        return;
      }
      yield next.value;
    }
  } finally {
    if (!done) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
