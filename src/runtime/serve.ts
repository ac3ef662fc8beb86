/**
 * Serves a fetch handler on the runtime at hand: Deno.serve, Bun.serve, or
 * @hono/node-server on Node. The one place that knows which server runs.
 */
import { serve as nodeServe } from '@hono/node-server';

type FetchHandler = (request: Request) => Response | Promise<Response>;

export interface RunningServer {
  port: number;
  close(): Promise<void>;
}

interface DenoLike {
  serve(options: { port: number; hostname: string; onListen?: () => void }, handler: FetchHandler): { addr: { port: number }; shutdown(): Promise<void> };
}
interface BunLike {
  serve(options: { port: number; hostname: string; fetch: FetchHandler }): { port: number; stop(force?: boolean): Promise<void> | void };
}

export function serve(fetch: FetchHandler, port: number, hostname: string): Promise<RunningServer> {
  const g = globalThis as { Deno?: DenoLike; Bun?: BunLike };
  if (g.Deno) {
    const server = g.Deno.serve({ port, hostname, onListen: () => undefined }, fetch);
    return Promise.resolve({ port: server.addr.port, close: () => server.shutdown() });
  }
  if (g.Bun) {
    const server = g.Bun.serve({ port, hostname, fetch });
    return Promise.resolve({ port: server.port, close: async () => void (await server.stop()) });
  }
  return new Promise((resolve, reject) => {
    const server = nodeServe({ fetch, port, hostname }, (info) => {
      resolve({
        port: info.port,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
    server.once('error', reject);
  });
}
