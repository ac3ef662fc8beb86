/**
 * A connection socket whose reads a COPY can take straight from the wire.
 * Node's default socket allocates a 64 KiB buffer for every read and hands
 * on an exact-size copy: a 5M-row COPY arrives in about 55,000 reads of
 * 8 kB (PostgreSQL sends in 8 kB pieces), and those allocations cost more
 * CPU than the framing itself, most of it in the garbage collector. With
 * `onread` (a public option of net.Socket) every read lands in one buffer the
 * socket keeps. While a COPY holds the tap, its reader copies what it needs
 * out of that buffer during the call; the rest of the time each read is
 * handed to node-postgres as a buffer of its own, as a plain socket would.
 */
import net from 'node:net';
import type { Duplex } from 'node:stream';

/** Larger than a socket read ever is here, so one read call takes whatever the kernel holds. */
const READ_BUFFER_BYTES = 256 * 1024;

/** Receives one socket read; the bytes are valid only during the call. */
export type ReadListener = (read: Uint8Array) => void;

export class ReadTap {
  readonly #socket: Duplex;
  #listener: ReadListener | null = null;

  constructor(socket: Duplex) {
    this.#socket = socket;
  }

  /** One read off the wire: to the holder of the tap, or (copied) to the socket's 'data' listeners. */
  deliver(read: Uint8Array): void {
    if (this.#listener !== null) this.#listener(read);
    else this.#socket.emit('data', Buffer.from(read));
  }

  /** From now on, reads go to `listener` instead of the socket's 'data' listeners. */
  take(listener: ReadListener): void {
    if (this.#listener !== null) throw new Error('the read tap is already taken');
    this.#listener = listener;
  }

  /** Gives reads back to the socket's 'data' listeners, starting with `rest` (the unread end of the last one). */
  release(rest: Uint8Array): void {
    this.#listener = null;
    if (rest.length > 0) this.#socket.emit('data', Buffer.from(rest));
  }
}

const taps = new WeakMap<Duplex, ReadTap>();

/** The tap of a socket made by `tappedSocket` (or given one by `tapSocket`); undefined for any other. */
export function readTapOf(socket: Duplex): ReadTap | undefined {
  return taps.get(socket);
}

/** Gives `socket` a tap whose `deliver` the caller feeds with its reads. */
export function tapSocket(socket: Duplex): ReadTap {
  const tap = new ReadTap(socket);
  taps.set(socket, tap);
  return tap;
}

/** A new, unconnected TCP or Unix socket whose reads go through a tap. */
export function tappedSocket(): net.Socket {
  let tap: ReadTap;
  const onread: net.OnReadOpts = {
    buffer: Buffer.allocUnsafe(READ_BUFFER_BYTES),
    callback: (bytes, buffer) => {
      tap.deliver(buffer.subarray(0, bytes));
      return true;
    },
  };
  // net.connect(options) hands its options to this constructor, which is where Node reads `onread`;
  // node-postgres connects the socket itself, by port and host, so the option must be given here.
  const socket = new net.Socket({ onread } as net.SocketConstructorOpts);
  tap = tapSocket(socket);
  return socket;
}

/**
 * Node only: Bun's and Deno's sockets are not known to honour `onread`,
 * and a socket that silently dropped reads would hang every export; there
 * node-postgres opens its own socket and a COPY reads its 'data' events
 * (the runtime smoke tests export on both).
 */
const socketsCanTap = !('Bun' in globalThis) && !('Deno' in globalThis);

/**
 * node-postgres's `stream` option: a tapped socket for a plain connection,
 * the socket node-postgres would make itself for one that asks for TLS
 * (the TLS layer reads the socket itself, so a tap would see only
 * ciphertext). `ssl` is node-postgres's resolved setting (URL and PGSSLMODE).
 */
export const connectionSocket = socketsCanTap
  ? (config?: { ssl?: unknown }): net.Socket => (config?.ssl ? new net.Socket() : tappedSocket())
  : undefined;
