/**
 * Stopping a statement on the server: KILL QUERY with the session's thread
 * id, sent from a connection of its own (the session itself is busy
 * streaming). The server then ends the statement with error 1317, which the
 * stream reports. A kill that is still on its way when the statement ends
 * could reach the session's next statement, so the export waits for it
 * (`settled`) before it sends anything else on the session.
 */
import type { MysqlTarget } from '../mysql-url.ts';
import { openConnection, run } from './mysql-session.ts';

export class QueryKiller {
  readonly #target: MysqlTarget;
  readonly #threadId: number;
  #sent: Promise<void> | null = null;

  constructor(target: MysqlTarget, threadId: number) {
    this.#target = target;
    this.#threadId = threadId;
  }

  get sent(): boolean {
    return this.#sent !== null;
  }

  /** Asks the server to stop the session's statement; at most once. */
  kill(): void {
    this.#sent ??= (async () => {
      const connection = await openConnection(this.#target);
      try {
        await run(connection, `KILL QUERY ${this.#threadId}`);
      } finally {
        connection.destroy();
      }
    })().catch(() => undefined);
  }

  /** Resolves once a kill that was sent has been carried out (or failed). */
  async settled(): Promise<void> {
    await this.#sent;
  }
}
