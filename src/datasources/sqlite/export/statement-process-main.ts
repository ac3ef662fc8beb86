/**
 * Entry of a SQLite statement process: runs the statements an export sends
 * on stdin, one at a time, and writes their frames to stdout. SQLite's
 * libraries step a statement synchronously and none of them can interrupt
 * one from another thread, and a worker thread cannot be ended while
 * SQLite runs inside it (its termination waits for JavaScript to run
 * again, which an endless aggregate never lets happen); a process can
 * always be ended, so every statement runs in one. The process lives on
 * between statements and ends when its stdin closes. No top-level await:
 * this file is also loaded where that is not allowed.
 */
import { setImmediate } from 'node:timers';
import { runStatement } from './run-statement.ts';
import { encodeFrame, STOP_LINE, type Frame, type StatementRequest } from './statement-protocol.ts';

let stopRequested = false;
let pending = '';
const queue: StatementRequest[] = [];
let running = false;

function write(frame: Frame): Promise<void> {
  // One system call for a frame's pieces (a writev), none of them copied.
  process.stdout.cork?.();
  const pieces = encodeFrame(frame);
  return new Promise((resolve) => {
    // Resolved once the last piece is written out (so are those before it): the batch's buffer is free
    // again, and a reader that stops reading stops this process here (backpressure); then a turn of the
    // event loop, so a stop line that arrived meanwhile is read before the next batch.
    const written = () => setImmediate(resolve);
    pieces.forEach((piece, i) => process.stdout.write(piece, i === pieces.length - 1 ? written : undefined));
    process.stdout.uncork?.();
  });
}

async function drain(): Promise<void> {
  if (running) return;
  running = true;
  try {
    for (let request = queue.shift(); request !== undefined; request = queue.shift()) {
      stopRequested = false;
      await runStatement(request, { send: write, writesThrough: true, stopped: () => stopRequested });
    }
  } finally {
    running = false;
  }
}

process.stdin.setEncoding('utf8');
process.stdin.on('data', (data: string) => {
  pending += data;
  for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
    const line = pending.slice(0, end);
    pending = pending.slice(end + 1);
    if (line === STOP_LINE) stopRequested = true;
    else if (line !== '') queue.push(JSON.parse(line) as StatementRequest);
  }
  void drain();
});
process.stdin.on('end', () => process.exit(0));
