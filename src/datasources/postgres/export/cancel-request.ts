/**
 * Stops the statement a node-postgres client is running, with PostgreSQL's
 * CancelRequest: a separate connection that carries the backend's process id
 * and secret key and nothing else. The server answers by closing that
 * connection once it has signalled the backend, so `settled()` tells the
 * caller when sending its next statement can no longer race the signal (a
 * cancel that reaches an idle session is dropped; one that reaches the next
 * statement would stop it instead).
 */
import { connect as netConnect, type Socket } from 'node:net';
import type pg from 'pg';

/** The protocol's cancel request code: 1234 in the high 16 bits, 5678 in the low. */
const CANCEL_REQUEST_CODE = 80877102;
/** A server that neither answers nor closes must not hold the export forever. */
const CANCEL_TIMEOUT_MS = 5_000;

/** node-postgres keeps the backend key it received at startup on the client; its types do not declare it. */
interface BackendKey {
  processID: number | null;
  secretKey: number | null;
}

export class CancelRequest {
  readonly #client: pg.Client;
  #sent: Promise<void> | null = null;

  constructor(client: pg.Client) {
    this.#client = client;
  }

  /** Sends the request once; later calls do nothing. */
  send(): void {
    this.#sent ??= this.#send();
  }

  /** Resolves once a request sent has been handled (at once if none was sent); never rejects. */
  settled(): Promise<void> {
    return this.#sent ?? Promise.resolve();
  }

  #send(): Promise<void> {
    const { processID, secretKey } = this.#client as unknown as BackendKey;
    const { host, port } = this.#client;
    if (processID === null || secretKey === null) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const socket: Socket = host.startsWith('/') ? netConnect(`${host}/.s.PGSQL.${port}`) : netConnect(port, host);
      const done = () => {
        clearTimeout(timer);
        socket.destroy();
        resolve();
      };
      const timer = setTimeout(done, CANCEL_TIMEOUT_MS);
      socket.once('connect', () => {
        const packet = Buffer.alloc(16);
        packet.writeInt32BE(16, 0);
        packet.writeInt32BE(CANCEL_REQUEST_CODE, 4);
        packet.writeInt32BE(processID, 8);
        packet.writeInt32BE(secretKey, 12);
        socket.end(packet);
      });
      // The server closes the connection when it has passed the request on; a failure to connect ends it too.
      socket.once('close', done);
      socket.once('error', done);
      socket.resume();
    });
  }
}
