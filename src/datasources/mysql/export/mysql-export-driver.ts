/**
 * MySQL's and MariaDB's export half, one per query worker: a session per
 * datasource URL, opened on first use and closed after a minute idle so an
 * idle worker holds no session open on the server. A session whose
 * connection failed is dropped, so the next export opens a fresh one and
 * the worker lives on.
 */
import type { ExportDriver } from '../../driver.ts';
import { mysqlError, toMysqlSluiceError } from '../mysql-errors.ts';
import { mysqlTarget } from '../mysql-url.ts';
import { runExport } from './export-run.ts';
import { openSession, type MysqlSession } from './mysql-session.ts';

/** A session idle this long is closed. */
const IDLE_CLOSE_MS = 60_000;

interface Open {
  session: Promise<MysqlSession>;
  idle: NodeJS.Timeout | null;
}

function endSession(open: Open): void {
  void open.session.then((s) => s.connection.end(() => s.connection.destroy())).catch(() => undefined);
}

export function createMysqlExportDriver(): ExportDriver {
  const sessions = new Map<string, Open>();

  function forget(url: string, open: Open): void {
    if (sessions.get(url) === open) sessions.delete(url);
    if (open.idle !== null) clearTimeout(open.idle);
  }

  function sessionFor(url: string): Promise<MysqlSession> {
    let open = sessions.get(url);
    if (open === undefined) {
      const opened: Open = { session: openSession(mysqlTarget(url)), idle: null };
      opened.session.then(
        (s) => {
          s.connection.on('error', () => forget(url, opened));
          s.connection.on('end', () => forget(url, opened));
        },
        () => forget(url, opened),
      );
      sessions.set(url, opened);
      open = opened;
    }
    if (open.idle !== null) clearTimeout(open.idle);
    open.idle = null;
    return open.session;
  }

  /** Starts the idle clock of a datasource's session once an export is done with it. */
  function release(url: string): void {
    const open = sessions.get(url);
    if (open === undefined) return;
    open.idle = setTimeout(() => {
      sessions.delete(url);
      endSession(open);
    }, IDLE_CLOSE_MS);
    open.idle.unref();
  }

  return {
    async export(url, request, consume) {
      try {
        let session: MysqlSession;
        try {
          session = await sessionFor(url);
        } catch (error) {
          throw toMysqlSluiceError(error);
        }
        return await runExport(mysqlTarget(url), session, request, consume);
      } finally {
        release(url);
      }
    },
    mapError: (error) => mysqlError(error),
    async close() {
      const open = [...sessions.values()];
      sessions.clear();
      for (const o of open) if (o.idle !== null) clearTimeout(o.idle);
      open.forEach(endSession);
      await Promise.all(open.map((o) => o.session.catch(() => undefined)));
    },
  };
}
