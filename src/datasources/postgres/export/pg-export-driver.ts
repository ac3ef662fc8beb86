/**
 * PostgreSQL's export half, one per query worker: a node-postgres session
 * per datasource URL, opened on first use and closed after a minute idle so
 * an idle worker holds no session open on the server. node-postgres reports
 * a connection lost during a statement to that statement's caller (the
 * export fails with a retryable SQL_ERROR); the client is dropped here as
 * well, so the next export opens a fresh one and the worker lives on.
 */
import type pg from 'pg';
import type { ExportDriver } from '../../driver.ts';
import { pgError } from '../pg-errors.ts';
import { runExport } from './export-run.ts';
import { connect } from './pg-connect.ts';

/** A connection idle this long is closed. */
const IDLE_CLOSE_MS = 60_000;

interface Connection {
  client: Promise<pg.Client>;
  idle: NodeJS.Timeout | null;
}

export function createPgExportDriver(): ExportDriver {
  const connections = new Map<string, Connection>();

  function forget(url: string, connection: Connection): void {
    if (connections.get(url) === connection) connections.delete(url);
    if (connection.idle !== null) clearTimeout(connection.idle);
  }

  function database(url: string): Promise<pg.Client> {
    let connection = connections.get(url);
    if (connection === undefined) {
      const opened: Connection = { client: connect(url, () => forget(url, opened)), idle: null };
      opened.client.catch(() => forget(url, opened));
      connections.set(url, opened);
      connection = opened;
    }
    if (connection.idle !== null) clearTimeout(connection.idle);
    connection.idle = null;
    return connection.client;
  }

  /** Starts the idle clock of a datasource's connection once an export is done with it. */
  function release(url: string): void {
    const connection = connections.get(url);
    if (connection === undefined) return;
    connection.idle = setTimeout(() => {
      connections.delete(url);
      void connection.client.then((client) => client.end()).catch(() => undefined);
    }, IDLE_CLOSE_MS);
    connection.idle.unref();
  }

  return {
    async export(url, request, consume) {
      try {
        return await runExport(await database(url), request, consume);
      } finally {
        release(url);
      }
    },
    mapError: pgError,
    async close() {
      const open = [...connections.values()];
      connections.clear();
      for (const c of open) if (c.idle !== null) clearTimeout(c.idle);
      await Promise.all(open.map((c) => c.client.then((client) => client.end()).catch(() => undefined)));
    },
  };
}
