/**
 * The export half's session on a MySQL or MariaDB server: opened with the
 * settings the statement check and the value encoding rely on, and asked
 * once which engine it is. READ ONLY for the whole session (each export
 * also runs in a READ ONLY transaction); UTC, so a TIMESTAMP's text is UTC;
 * and an sql_mode without NO_BACKSLASH_ESCAPES and ANSI_QUOTES, so strings
 * end where the statement check's lexer says they do and bound values are
 * quoted as export/bind-params.ts quotes them.
 */
import mysql, { type Connection } from 'mysql2';
import { flavorOf, type MysqlTarget } from '../mysql-url.ts';
import type { MysqlFlavor } from '../sql-parser.ts';

/** Modes that change where a string or identifier ends. */
const LEXICAL_MODES = new Set(['NO_BACKSLASH_ESCAPES', 'ANSI_QUOTES', 'ANSI', 'ORACLE', 'MSSQL', 'DB2', 'MAXDB', 'POSTGRESQL']);

export interface MysqlSession {
  connection: Connection;
  flavor: MysqlFlavor;
  /** The server's id for this connection, what KILL QUERY names. */
  threadId: number;
}

/** Runs one statement on `connection` and resolves with its rows (as objects). */
export function run(connection: Connection, sql: string): Promise<Record<string, unknown>[]> {
  return new Promise((resolve, reject) => {
    connection.query({ sql, rowsAsArray: false }, (error, rows) => (error ? reject(error) : resolve(rows as Record<string, unknown>[])));
  });
}

export function openConnection(target: MysqlTarget): Promise<Connection> {
  return new Promise((resolve, reject) => {
    const connection = mysql.createConnection(target.options);
    // A fatal error outside a statement (a dropped socket) is reported here; without a listener it would end the process.
    connection.on('error', () => undefined);
    connection.connect((error) => (error ? reject(error) : resolve(connection)));
  });
}

export async function openSession(target: MysqlTarget): Promise<MysqlSession> {
  const connection = await openConnection(target);
  try {
    const [info] = await run(connection, 'SELECT VERSION() AS version, @@SESSION.sql_mode AS mode');
    const modes = String(info?.mode ?? '').split(',').filter((m) => m !== '' && !LEXICAL_MODES.has(m.toUpperCase()));
    await run(connection, 'SET SESSION TRANSACTION READ ONLY');
    await run(connection, `SET SESSION time_zone = '+00:00', SESSION sql_mode = ${connection.escape(modes.join(','))}`);
    return { connection, flavor: flavorOf(String(info?.version ?? '')), threadId: connection.threadId ?? 0 };
  } catch (error) {
    connection.destroy();
    throw error;
  }
}
