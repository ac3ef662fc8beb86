/**
 * DuckDB's own parse of a statement, as `json_serialize_sql` writes it: one
 * tree per SELECT (DuckDB serializes nothing else, which is itself the
 * first answer to "is this a read?"), or the parser's error with the character
 * position it names. A DuckDB instance with no access to any file parses;
 * nothing is ever run on it.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';

/** A node of the serialized tree: objects and arrays of them, walked generically. */
export type TreeNode = Record<string, unknown>;

export type Parsed =
  | { ok: true; statements: { node: TreeNode }[] }
  | { ok: false; errorType: string; message: string; position: number | null };

export class SqlParser {
  #connection: Promise<DuckDBConnection> | null = null;

  async parse(sql: string): Promise<Parsed> {
    const connection = await this.#connect();
    const reader = await connection.runAndReadAll('SELECT json_serialize_sql($1::VARCHAR)', [sql]);
    const json = JSON.parse(String(reader.getRowsJS()[0]?.[0])) as {
      error: boolean;
      statements?: { node: TreeNode }[];
      error_type?: string;
      error_message?: string;
      position?: string;
    };
    if (!json.error) return { ok: true, statements: json.statements ?? [] };
    const position = json.position === undefined ? null : Number(json.position);
    return { ok: false, errorType: json.error_type ?? '', message: json.error_message ?? '', position: Number.isFinite(position) ? position : null };
  }

  /** How many statements DuckDB's parser finds in `sql` (comments and empty statements are none). */
  async count(sql: string): Promise<number> {
    return (await (await this.#connect()).extractStatements(sql)).count;
  }

  /** DuckDB's statement type when the statement binds on an empty engine; null when it does not. */
  async statementType(sql: string): Promise<number | null> {
    try {
      const extracted = await (await this.#connect()).extractStatements(sql);
      if (extracted.count !== 1) return null;
      const prepared = await extracted.prepare(0);
      const type = prepared.statementType as number;
      prepared.destroySync();
      return type;
    } catch {
      return null;
    }
  }

  async close(): Promise<void> {
    const connection = this.#connection;
    this.#connection = null;
    (await connection?.catch(() => null))?.closeSync();
  }

  #connect(): Promise<DuckDBConnection> {
    this.#connection ??= (async () => {
      const instance = await DuckDBInstance.create(':memory:', {
        threads: '1',
        autoload_known_extensions: 'false',
        autoinstall_known_extensions: 'false',
        temp_directory: '',
        enable_external_access: 'false',
      });
      const connection = await instance.connect();
      await connection.run('SET lock_configuration = true');
      return connection;
    })();
    return this.#connection;
  }
}

/** Every node of a tree, depth first. */
export function walkTree(node: unknown, visit: (node: TreeNode) => void): void {
  if (Array.isArray(node)) {
    for (const item of node) walkTree(item, visit);
  } else if (node !== null && typeof node === 'object') {
    visit(node as TreeNode);
    for (const value of Object.values(node)) walkTree(value, visit);
  }
}
