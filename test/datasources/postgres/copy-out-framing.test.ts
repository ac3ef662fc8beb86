/**
 * CopyOut's framing on made-up protocol bytes, cut at every byte: however
 * the socket splits the messages (inside a header, inside a row, inside a
 * row longer than several reads), the rows come out whole, in order,
 * counted, with their longest, and what follows CopyDone or an
 * ErrorResponse goes back to the driver's own reader untouched. Each case
 * runs twice: reads arriving as 'data' events, and reads delivered through
 * a socket's tap in one buffer that is overwritten after every read (as
 * Node's `onread` does), so nothing may be kept from it. The real server's
 * splits are covered in copy-out.test.ts; these are every split.
 */
import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import type pg from 'pg';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CopyOut } from '../../../src/datasources/postgres/export/copy-out.ts';
import { tapSocket } from '../../../src/datasources/postgres/export/read-tap.ts';
import type { SourceChunk } from '../../../src/worker/export/row-source.ts';

function message(code: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(code, 0, 'latin1');
  head.writeUInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

/** A socket with node-postgres's reader on it, as CopyOut finds it. */
class FakeSocket extends EventEmitter {
  paused = false;
  isPaused(): boolean {
    return this.paused;
  }
  pause(): void {
    this.paused = true;
  }
  resume(): void {
    this.paused = false;
  }
}

const ROWS = ['1,a\n', '22,"b,b"\n', `333,${'x'.repeat(70)}\n`, '4,\n', `5,${'y'.repeat(300)}\n`, '6,"q""q"\n'];
const START = message('H', Buffer.from([0, 0, 2, 0, 0, 0, 0]));
const DATA = Buffer.concat(ROWS.map((r) => message('d', Buffer.from(r))));
const AFTER_DONE = Buffer.concat([message('C', Buffer.from('COPY 6\0')), message('Z', Buffer.from('I'))]);
const DONE = Buffer.concat([message('c', Buffer.alloc(0)), AFTER_DONE]);
const ERROR = Buffer.concat([message('E', Buffer.from('SERROR\0C57014\0\0')), message('Z', Buffer.from('I'))]);

type Path = 'data events' | 'tap';
const PATHS: Path[] = ['data events', 'tap'];

interface Fed {
  chunks: SourceChunk[];
  driver: Buffer;
  /** How many distinct buffers the chunks were lent in. */
  buffers: number;
}

/**
 * Feeds `wire` to a CopyOut in the given pieces; returns its chunks and what
 * reached the driver's reader. A `slow` consumer lets a turn of the event
 * loop pass after every third chunk, so reads queue up behind it.
 */
async function feed(wire: Buffer, cuts: number[], path: Path, slow = false): Promise<Fed> {
  const socket = new FakeSocket();
  const toDriver: Buffer[] = [];
  socket.on('data', (b: Buffer) => toDriver.push(Buffer.from(b)));
  const tap = path === 'tap' ? tapSocket(socket as unknown as Duplex) : null;
  const readBuffer = Buffer.alloc(wire.length);
  const copy = new CopyOut('COPY (select 1) TO STDOUT (FORMAT csv)');
  copy.submit({ stream: socket, query: () => undefined } as unknown as pg.Connection);
  const chunks: SourceChunk[] = [];
  const buffers = new Set<ArrayBufferLike>();
  // Consumed as they come, as the export does; a copy of each, since a chunk is only lent until the next.
  const consumed = (async () => {
    for await (const chunk of copy) {
      buffers.add(chunk.bytes.buffer);
      chunks.push({ ...chunk, bytes: Buffer.from(chunk.bytes) });
      if (slow && chunks.length % 3 === 0) await new Promise(setImmediate);
    }
  })();
  let from = 0;
  for (const to of [...cuts, wire.length]) {
    if (to > from) {
      if (tap === null) {
        // Each read is a buffer of its own, as the socket gives them.
        socket.emit('data', Buffer.from(wire.subarray(from, to)));
      } else {
        const read = readBuffer.subarray(0, to - from);
        wire.copy(read, 0, from, to);
        tap.deliver(read);
        read.fill(0x7e);
      }
    }
    from = to;
    await Promise.resolve();
  }
  copy.handleReadyForQuery();
  await consumed;
  return { chunks, driver: Buffer.concat(toDriver), buffers: buffers.size };
}

function check(result: Fed, after: Buffer): void {
  expect(Buffer.concat(result.chunks.map((c) => c.bytes)).toString()).toBe(ROWS.join(''));
  expect(result.chunks.reduce((n, c) => n + c.rows!, 0)).toBe(ROWS.length);
  for (const chunk of result.chunks) {
    const lines = chunk.bytes.toString().split('\n').slice(0, -1);
    expect(chunk.rows).toBe(lines.length);
    expect(chunk.longestRow).toBe(Math.max(...lines.map((l) => l.length + 1)));
  }
  expect(result.driver.equals(after)).toBe(true);
}

describe.each(PATHS)('CopyOut framing, reads as %s', (path) => {
  it('cut once at every byte, the rows and the hand-back come out the same', async () => {
    const wire = Buffer.concat([START, DATA, DONE]);
    for (let cut = 1; cut < wire.length; cut++) check(await feed(wire, [cut], path), AFTER_DONE);
  });

  it('cut into reads of every size from 1 to 120 bytes', async () => {
    const wire = Buffer.concat([START, DATA, DONE]);
    for (let size = 1; size <= 120; size++) check(await feed(wire, cutsOf(wire, size), path), AFTER_DONE);
  });

  it('ends at an ErrorResponse with every row before it, wherever the error is cut', async () => {
    const wire = Buffer.concat([START, DATA, ERROR]);
    for (let cut = START.length + DATA.length - 20; cut < wire.length; cut++) check(await feed(wire, [cut], path), ERROR);
  });

  it('keeps rows whole across its 1 MiB buffers, and a row longer than one of them', async () => {
    const many = Array.from({ length: 40_000 }, (_, i) => `${i},${'m'.repeat(i % 97)}\n`);
    const long = `0,${'L'.repeat(2_600_000)}\n`;
    const rows = [...many.slice(0, 20_000), long, ...many.slice(20_000)];
    const wire = Buffer.concat([START, ...rows.map((r) => message('d', Buffer.from(r))), DONE]);
    for (const size of [8_192, 65_536 + 3, 262_144]) {
      const { chunks, driver } = await feed(wire, cutsOf(wire, size), path);
      expect(Buffer.concat(chunks.map((c) => c.bytes)).toString()).toBe(rows.join(''));
      expect(chunks.reduce((n, c) => n + c.rows!, 0)).toBe(rows.length);
      expect(Math.max(...chunks.map((c) => c.longestRow))).toBe(long.length);
      expect(driver.equals(AFTER_DONE)).toBe(true);
    }
  });
});

describe.each(PATHS)('CopyOut reusing its 1 MiB buffers, reads as %s', (path) => {
  const rows = Array.from({ length: 150_000 }, (_, i) => `${i},${'r'.repeat(i % 89)}\n`);
  const wire = Buffer.concat([START, ...rows.map((r) => message('d', Buffer.from(r))), DONE]);
  const expected = Buffer.from(rows.join(''));

  it('lends each chunk until the next is asked for, then writes over it: 8 MB pass through a few buffers', async () => {
    expect(wire.length).toBeGreaterThan(8 * 1024 * 1024);
    const fed = await feed(wire, cutsOf(wire, 65_536), path);
    // Compared as bytes: a diff of two 8 MB strings takes minutes to print.
    expect(Buffer.concat(fed.chunks.map((c) => c.bytes)).equals(expected), 'the rows, byte for byte').toBe(true);
    expect(fed.buffers).toBeLessThanOrEqual(3);
  });

  it('never writes over rows still queued behind a slow consumer', async () => {
    const fed = await feed(wire, cutsOf(wire, 65_536), path, true);
    // Compared as bytes: a diff of two 8 MB strings takes minutes to print.
    expect(Buffer.concat(fed.chunks.map((c) => c.bytes)).equals(expected), 'the rows, byte for byte').toBe(true);
    expect(fed.chunks.reduce((n, c) => n + c.rows!, 0)).toBe(rows.length);
  });
});

describe('CopyOut with a busy consumer', () => {
  it('hands over the rows of reads that arrived meanwhile as one chunk', async () => {
    const socket = new FakeSocket();
    socket.on('data', () => undefined);
    const copy = new CopyOut('COPY (select 1) TO STDOUT (FORMAT csv)');
    copy.submit({ stream: socket, query: () => undefined } as unknown as pg.Connection);
    const wire = Buffer.concat([START, DATA, DONE]);
    // Every read arrives before the consumer asks for any.
    for (let at = 0; at < wire.length; at += 10) socket.emit('data', Buffer.from(wire.subarray(at, at + 10)));
    copy.handleReadyForQuery();
    const chunks: SourceChunk[] = [];
    for await (const chunk of copy) chunks.push(chunk);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toMatchObject({ rows: ROWS.length, longestRow: Math.max(...ROWS.map((r) => r.length)) });
    expect(Buffer.from(chunks[0]!.bytes).toString()).toBe(ROWS.join(''));
  });
});

function cutsOf(wire: Buffer, size: number): number[] {
  return Array.from({ length: Math.ceil(wire.length / size) }, (_, i) => (i + 1) * size).filter((c) => c < wire.length);
}

describe('CopyOut gathering reads on a tapped socket', () => {
  /** A CopyOut reading a tapped fake socket, and a way to send it a read of `n` bytes of whole messages. */
  function tapped() {
    const socket = new FakeSocket();
    socket.on('data', () => undefined);
    const tap = tapSocket(socket as unknown as Duplex);
    const copy = new CopyOut('COPY (select 1) TO STDOUT (FORMAT csv)');
    copy.submit({ stream: socket, query: () => undefined } as unknown as pg.Connection);
    // The CopyOutResponse is a short read too: the gathering after it ends before the test's reads.
    tap.deliver(START);
    vi.advanceTimersByTime(1);
    /** One read holding one CopyData message `n` bytes long in all. */
    const read = (n: number) => tap.deliver(message('d', Buffer.alloc(n - 5, 0x61)));
    return { socket, tap, copy, read };
  }

  beforeEach(() => void vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] }));
  afterEach(() => void vi.useRealTimers());

  it('stops reading for a millisecond after a short read, so that the kernel gathers the next ones', () => {
    const { socket, read } = tapped();
    read(8_192);
    expect(socket.isPaused()).toBe(true);
    vi.advanceTimersByTime(1);
    expect(socket.isPaused()).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('reads on at once after a long read', () => {
    const { socket, read } = tapped();
    read(64 * 1024);
    expect(socket.isPaused()).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('stays paused after gathering while the consumer is behind, and reads on once it catches up', async () => {
    const { socket, copy, read } = tapped();
    for (let i = 0; i < 70; i++) read(64 * 1024);
    expect(socket.isPaused()).toBe(true);
    read(100);
    vi.advanceTimersByTime(1);
    expect(socket.isPaused()).toBe(true);
    const chunks = copy[Symbol.asyncIterator]();
    await chunks.next();
    expect(socket.isPaused()).toBe(false);
  });

  it('hands the socket back reading, with no timer left, when the COPY ends or fails', () => {
    const done = tapped();
    done.read(100);
    done.tap.deliver(DONE);
    expect(done.socket.isPaused()).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
    const failed = tapped();
    failed.read(100);
    failed.copy.handleError(new Error('connection lost'));
    expect(vi.getTimerCount()).toBe(0);
  });

  it('never pauses a socket read through its data events: that one would go on reading into its stream', () => {
    const socket = new FakeSocket();
    socket.on('data', () => undefined);
    const copy = new CopyOut('COPY (select 1) TO STDOUT (FORMAT csv)');
    copy.submit({ stream: socket, query: () => undefined } as unknown as pg.Connection);
    socket.emit('data', Buffer.concat([START, message('d', Buffer.from('1\n'))]));
    expect(socket.isPaused()).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });
});
