/**
 * The load of a pages figure, in a process of its own: autocannon on the
 * same event loop as the server would spend the server's thread on its own
 * work (making its 50 clients, building each request, reading each answer)
 * and show its pauses as the server's stalls. Reads one JSON file naming the
 * load (bench/pages.ts writes it), runs it, and prints one JSON line.
 *
 *   load-child.ts <load.json>
 * load.json: {"url", "connections", "headers", "requests": [{"path", "body"}], "amount"?, "duration"?}
 * With `amount`, the requests are sent once each, in order; with `duration`, the first is sent again and again.
 */
import type { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

interface LoadFile {
  url: string;
  connections: number;
  headers: Record<string, string>;
  requests: { path: string; body: string }[];
  amount?: number;
  duration?: number;
}

const load = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as LoadFile;
let next = 0;
const t0 = performance.now();
// A page slower than autocannon's 10 s default is still a page served: on a loaded machine every one was dropped as a timeout.
const running = autocannon({
  url: load.url,
  connections: load.connections,
  method: 'POST',
  headers: load.headers,
  timeout: 120,
  ...(load.amount === undefined ? { duration: load.duration ?? 5 } : { amount: load.amount }),
  requests: [
    {
      setupRequest: (req: Record<string, unknown>) => {
        const request = load.requests[next++ % load.requests.length]!;
        return { ...req, path: request.path, body: request.body };
      },
    },
  ] as never,
});
// With `amount`, autocannon settles at its next one-second tick after the last answer, not at that
// answer: timed to its own end, a run of 10.1 s counted as 11. The last answer ends the run.
let lastAnswer = t0;
// The promise autocannon answers is its tracker too (an EventEmitter), which its types do not say.
(running as unknown as EventEmitter).on('response', () => (lastAnswer = performance.now()));
const result = await running;
const seconds = ((load.amount === undefined ? performance.now() : lastAnswer) - t0) / 1000;
console.log(
  JSON.stringify({
    requests: result.requests.total,
    // autocannon's average is per second of its own clock; over a fixed amount the whole run's rate is the honest one.
    rps: load.amount === undefined ? result.requests.average : result.requests.total / seconds,
    p99: result.latency.p99,
    bad: result.errors + result.non2xx,
  }),
);
