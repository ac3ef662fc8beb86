/**
 * The socket a COPY reads through: a plain connection gets a tapped socket
 * and one asking for TLS the plain socket node-postgres would make; while
 * no COPY holds the tap, each read reaches node-postgres as a buffer of its
 * own, so the reused read buffer never changes what the driver was given.
 */
import { Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { clientConfig } from '../../../src/datasources/postgres/export/pg-connect.ts';
import { connectionSocket, readTapOf, tapSocket } from '../../../src/datasources/postgres/export/read-tap.ts';
import { testClient } from './test-client.ts';

const client = testClient();

describe('read tap', () => {
  it('is on the sockets of plain connections, not of TLS ones', () => {
    const stream = clientConfig('postgres://u@db.example/x').stream as typeof connectionSocket;
    expect(stream).toBe(connectionSocket);
    expect(readTapOf(connectionSocket!({ ssl: false }))).toBeDefined();
    expect(readTapOf(connectionSocket!({ ssl: { rejectUnauthorized: false } }))).toBeUndefined();
    expect(readTapOf(client().connection.stream)).toBeDefined();
  });

  it('gives each untapped read to the data listeners as a copy, and tapped reads only to the holder', () => {
    const socket = new Duplex({ read: () => undefined });
    const tap = tapSocket(socket);
    const emitted: Buffer[] = [];
    socket.on('data', (b: Buffer) => emitted.push(b));
    const read = Buffer.from('first');
    tap.deliver(read);
    read.write('XXXXX');
    expect(emitted.map(String)).toEqual(['first']);
    const taken: string[] = [];
    tap.take((bytes) => taken.push(Buffer.from(bytes).toString()));
    expect(() => tap.take(() => undefined)).toThrow(/already taken/);
    tap.deliver(Buffer.from('second'));
    tap.release(Buffer.from('rest'));
    tap.deliver(Buffer.from('third'));
    expect(taken).toEqual(['second']);
    expect(emitted.map(String)).toEqual(['first', 'rest', 'third']);
  });
});
