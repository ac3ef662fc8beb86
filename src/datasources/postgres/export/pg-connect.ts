/**
 * Opens the query worker's node-postgres session with a datasource. Exports
 * run on node-postgres because it lets a COPY be read as a byte stream in
 * whole socket reads (copy-out.ts), not one message per row, on a socket
 * whose reads a COPY can take without an allocation each (read-tap.ts).
 * Values are never parsed here: every column reaches the export as
 * PostgreSQL's text.
 */
import pg from 'pg';
import { connectionSocket } from './read-tap.ts';

/** Connection parameters node-postgres understands in a URL; anything else is a setting of the session. */
const PG_PARAMS = new Set([
  'host', 'port', 'user', 'password', 'dbname', 'database', 'application_name', 'fallback_application_name',
  'options', 'ssl', 'sslmode', 'sslcert', 'sslkey', 'sslrootcert', 'sslnegotiation', 'uselibpqcompat',
  'client_encoding', 'connect_timeout', 'keepalives', 'keepalives_idle', 'replication',
]);

/** Identity parsers: the export wants the text PostgreSQL sent, not JavaScript values. */
const AS_TEXT = { getTypeParser: () => (value: string) => value };

const CONNECT_TIMEOUT_MS = 10_000;

/**
 * A datasource URL may carry session settings as query parameters
 * (`?TimeZone=UTC`), as libpq takes them. node-postgres ignores parameters
 * it does not know, so they are passed as `-c name=value` options: the URL
 * means the same session as it does to psql.
 */
export function sessionConfig(url: string): pg.ClientConfig {
  const parsed = new URL(url);
  const options: string[] = [];
  for (const [name, value] of [...parsed.searchParams]) {
    if (name === 'options') options.unshift(value);
    else if (!PG_PARAMS.has(name)) options.push(`-c ${name}=${value.replace(/[\\ ]/g, '\\$&')}`);
    else continue;
    parsed.searchParams.delete(name);
  }
  return {
    connectionString: parsed.toString(),
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    ...(options.length > 0 ? { options: options.join(' ') } : {}),
  };
}

/** The export's session: every value as PostgreSQL's text, on a socket whose reads a COPY can take without an allocation each. */
export function clientConfig(url: string): pg.ClientConfig {
  return {
    ...sessionConfig(url),
    application_name: 'sluice',
    types: AS_TEXT,
    ...(connectionSocket ? { stream: connectionSocket } : {}),
  };
}

/** Clients whose connection ended or failed. */
const lost = new WeakSet<pg.Client>();

/**
 * Whether the client's connection is gone. A statement that fails as the
 * connection goes reports whatever arrived first (the server's FATAL
 * "terminating connection", a reset socket); the export reports them all as
 * one retryable lost connection.
 */
export function connectionLost(client: pg.Client): boolean {
  return lost.has(client);
}

/**
 * A connected client. node-postgres reports a connection lost during a
 * statement to that statement's caller, and emits it on the client as well;
 * `onLost` hears the latter (without a listener the worker would crash) so
 * the owner can drop the client and open a fresh one for the next task.
 */
export async function connect(url: string, onLost: () => void): Promise<pg.Client> {
  const client = new pg.Client(clientConfig(url));
  const gone = () => {
    lost.add(client);
    onLost();
  };
  client.on('error', gone);
  client.on('end', gone);
  await client.connect();
  return client;
}
