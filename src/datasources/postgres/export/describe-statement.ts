/**
 * PostgreSQL's own description of a statement, without running it: Parse,
 * then Describe of the statement, which answers with the parameter types and
 * the result's columns. node-postgres has no call for this, but takes any
 * Submittable (the extension point pg-cursor and pg-copy-streams are built
 * on) and hands it the connection; this is one.
 */
import type pg from 'pg';

export interface StatementField {
  name: string;
  /** Type OID. */
  dataTypeID: number;
  /** OID of the table the column comes from, 0 when computed. */
  tableID: number;
  /** The column's number in that table. */
  columnID: number;
  /** The type modifier (a numeric's precision and scale), -1 when none. */
  dataTypeModifier: number;
}

export interface StatementDescription {
  paramTypes: number[];
  fields: StatementField[];
}

export class DescribeStatement implements pg.Submittable {
  readonly #text: string;
  readonly #done: Promise<StatementDescription>;
  #resolve!: (value: StatementDescription) => void;
  #reject!: (error: unknown) => void;
  #paramTypes: number[] = [];
  #fields: StatementField[] = [];

  constructor(text: string) {
    this.#text = text;
    this.#done = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  /** The description, or the error PostgreSQL raised while parsing the statement. */
  get result(): Promise<StatementDescription> {
    return this.#done;
  }

  submit(connection: pg.Connection): void {
    // node-postgres routes the result's RowDescription to the active query but has no handler for
    // ParameterDescription; the connection emits it as an event, which ends with this statement.
    const onParams = (message: { dataTypeIDs: number[] }) => (this.#paramTypes = [...message.dataTypeIDs]);
    connection.once('parameterDescription', onParams);
    this.#done.catch(() => undefined).finally(() => connection.removeListener('parameterDescription', onParams));
    connection.parse({ text: this.#text, name: '', types: [] }, true);
    connection.describe({ type: 'S', name: '' }, true);
    connection.sync();
  }

  handleRowDescription(message: { fields: StatementField[] }): void {
    this.#fields = message.fields;
  }

  handleError(error: unknown): void {
    // node-postgres has already detached this query; the Sync sent brings the session back to idle.
    this.#reject(error);
  }

  /** A statement that returns no rows (NoData instead of a RowDescription) describes no columns. */
  handleReadyForQuery(): void {
    this.#resolve({ paramTypes: this.#paramTypes, fields: this.#fields });
  }

  // Never sent in answer to Parse and Describe; node-postgres may still call them on any active query.
  handleDataRow(): void {}
  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyInResponse(): void {}
  handleCopyData(): void {}
}
