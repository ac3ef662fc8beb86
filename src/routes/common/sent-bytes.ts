/**
 * A streamed answer's body, counted as the server takes it: the audit of a
 * download records the bytes that left, which are known only once the body
 * has ended, been cut off by the client, or failed (a stored part that
 * fails its integrity check errors the stream after its status was sent).
 */
import type { SentBody } from '../../auth/middleware.ts';
import { SluiceError } from '../../errors.ts';

/**
 * `body` passed on chunk by chunk, read only when the server asks for more
 * (the back-pressure of the source stays), and `sent`, which settles once
 * with what was sent however the stream ended.
 */
export function countSentBytes(body: ReadableStream<Uint8Array>): { body: ReadableStream<Uint8Array>; sent: Promise<SentBody> } {
  const reader = body.getReader();
  let bytes = 0;
  let settle!: (sent: SentBody) => void;
  const sent = new Promise<SentBody>((resolve) => (settle = resolve));
  let ended = false;
  // A read still pending when the server cancels ends as "done": that end is the cancel's, not the body's.
  let cancelled = false;
  const end = (whole: boolean, error?: unknown) => {
    if (ended) return;
    ended = true;
    settle({ bytes, whole, errorCode: error instanceof SluiceError ? error.code : null });
  };
  const counted = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const next = await reader.read();
          if (next.done) {
            end(!cancelled);
            controller.close();
            return;
          }
          bytes += next.value.byteLength;
          controller.enqueue(next.value);
        } catch (error) {
          end(false, error);
          controller.error(error);
        }
      },
      async cancel(reason) {
        cancelled = true;
        // Settled once the source let go (its file removed, its lease released), so whoever waits sees it done.
        try {
          await reader.cancel(reason);
        } finally {
          end(false);
        }
      },
    },
    // Nothing read ahead: a chunk is counted when the server takes it.
    { highWaterMark: 0 },
  );
  return { body: counted, sent };
}
