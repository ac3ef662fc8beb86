/** A privileged mysql2 connection for a test file's setup, inspection and teardown: one statement at a time, rows as objects. */
import mysql from 'mysql2/promise';
import { MYSQL_URL } from './mysql-test-url.ts';

export interface AdminClient {
  query(sql: string): Promise<Record<string, unknown>[]>;
  end(): Promise<void>;
}

export function adminClient(url = MYSQL_URL): AdminClient {
  let connection: Promise<mysql.Connection> | null = null;
  const open = () => (connection ??= mysql.createConnection({ uri: url, multipleStatements: false, dateStrings: true, supportBigNumbers: true, bigNumberStrings: true }));
  return {
    async query(sql) {
      const [rows] = await (await open()).query(sql);
      return Array.isArray(rows) ? (rows as Record<string, unknown>[]) : [];
    },
    async end() {
      if (connection !== null) await (await connection).end();
    },
  };
}
