/**
 * A PostgreSQL URL whose server takes every connection and never says a
 * word, as a hung proxy or a paused VM would: a catalog that neither opens
 * nor fails fast, so start-up waits on it for as long as it runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';

export interface SilentCatalog {
  url: string;
  close(): Promise<void>;
}

export async function silentCatalog(): Promise<SilentCatalog> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `postgres://postgres@127.0.0.1:${port}/sluice`,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A data directory and a silent catalog for each test of the file, both gone after it. */
export function silentCatalogPerTest(prefix: string): () => Promise<{ dataDir: string; catalog: SilentCatalog }> {
  let made: { dataDir: string; catalog: SilentCatalog } | undefined;
  afterEach(async () => {
    if (made === undefined) return;
    await made.catalog.close();
    rmSync(made.dataDir, { recursive: true, force: true });
    made = undefined;
  });
  return async () => {
    made = { dataDir: mkdtempSync(join(tmpdir(), prefix)), catalog: await silentCatalog() };
    return made;
  };
}
