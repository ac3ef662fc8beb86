/**
 * Where the MySQL/MariaDB tests find their server: TEST_MYSQL_URL (CI sets
 * it to the MariaDB it starts). Without it the MySQL test files skip with
 * the reason shown, so a machine without the server still passes. Each test
 * file works in a database of its own, so files can run side by side.
 */
import { skipNote } from '../../helpers/skip-note.ts';

export const MYSQL_URL = process.env.TEST_MYSQL_URL ?? '';
export const NO_MYSQL = MYSQL_URL === '';

/**
 * The test server's URL with `database` as its database. A skipped suite is
 * still collected: without a server it gets a URL nothing listens on, which
 * nothing connects to, since drivers open lazily.
 */
export function urlWithDatabase(database: string): string {
  const url = new URL(NO_MYSQL ? 'mysql://root@127.0.0.1:1/' : MYSQL_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

/** A describe title that says why it is skipped when there is no server. */
export function mysqlTitle(title: string): string {
  return skipNote(NO_MYSQL, title, 'TEST_MYSQL_URL is not set (no MySQL or MariaDB server to test against)');
}
