/**
 * The engine's catalog through the driver: the fixture's relations listed
 * with their kinds and an exact total however a search or a limit cuts the
 * page, a table described with its columns and keys, an unknown one null;
 * and the driver's health and declared capabilities.
 */
import { expect, it } from 'vitest';
import { SluiceError } from '../../src/errors.ts';
import { skipNote } from '../helpers/skip-note.ts';
import type { ContractContext } from './driver-contract.ts';

const byName = <T extends { name: string }>(items: T[]): T[] => [...items].sort((a, b) => a.name.localeCompare(b.name));

export function catalogCases({ name, fixture, under }: ContractContext): void {
  const { schema, table, child, relations, search } = fixture.introspection;
  const driver = under.driver;

  it("lists every relation of the fixture's schema with its kind, and the exact total", async () => {
    const listed = await driver.listTables({ schema, limit: 1000 });
    expect(byName(listed.tables.map((t) => ({ name: t.name, kind: t.kind })))).toEqual(byName(relations));
    expect(listed.total).toBe(relations.length);
    for (const t of listed.tables) {
      expect(t.schema).toBe(schema);
      expect(t.estimatedRows === null || Number.isInteger(t.estimatedRows), `estimatedRows of ${t.name}`).toBe(true);
    }
  });

  it('counts every match in total when a limit cuts the page', async () => {
    const page = await driver.listTables({ schema, limit: 2 });
    expect(page.tables).toHaveLength(2);
    expect(page.total).toBe(relations.length);
    const searched = await driver.listTables({ schema, search: search.text, limit: 1 });
    expect(searched.tables).toHaveLength(1);
    expect(search.names).toContain(searched.tables[0]!.name);
    expect(searched.total).toBe(search.names.length);
  });

  it('finds tables by a search, in the given schema or in any', async () => {
    const inSchema = await driver.listTables({ schema, search: search.text, limit: 1000 });
    expect(inSchema.tables.map((t) => t.name).sort()).toEqual([...search.names].sort());
    expect(inSchema.total).toBe(search.names.length);
    const anywhere = await driver.listTables({ search: search.text, limit: 1000 });
    const ours = anywhere.tables.filter((t) => t.schema === schema).map((t) => t.name);
    expect(ours.sort()).toEqual([...search.names].sort());
    expect(anywhere.total).toBe(anywhere.tables.length);
    const none = await driver.listTables({ schema, search: 'no relation is called this', limit: 10 });
    expect(none).toEqual({ tables: [], total: 0 });
  });

  it('describes a table: columns with types and nullability, primary key', async () => {
    const detail = await driver.describeTable(schema, table.name);
    expect(detail).not.toBeNull();
    const { estimatedRows, ...rest } = detail!;
    expect(rest).toEqual({ ...table, schema });
    expect(estimatedRows === null || Number.isInteger(estimatedRows)).toBe(true);
  });

  it('describes a foreign key with the columns it references', async () => {
    const detail = await driver.describeTable(schema, child.name);
    expect(detail?.foreignKeys).toEqual(child.foreignKeys);
  });

  it('answers null for a table that does not exist', async () => {
    expect(await driver.describeTable(schema, 'no_such_table_here')).toBeNull();
    expect(await driver.describeTable('no_such_schema_here', table.name)).toBeNull();
  });

  it('answers health with a round trip', async () => {
    await expect(driver.health()).resolves.toBeUndefined();
  });

  const unreachable = under.openUnreachable;
  it.skipIf(unreachable === undefined)(skipNote(unreachable === undefined, 'fails health with a retryable DATASOURCE_UNAVAILABLE when the engine cannot be reached', `${name} gives no unreachable URL`), async () => {
    const lost = unreachable!();
    try {
      const error = await lost.health().then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(SluiceError);
      expect((error as SluiceError).code).toBe('DATASOURCE_UNAVAILABLE');
      expect((error as SluiceError).status).toBe(503);
      expect((error as SluiceError).details).toMatchObject({ retryable: true });
    } finally {
      await lost.close();
    }
  });

  it('declares its capabilities as booleans', () => {
    const { capabilities } = driver;
    expect(Object.keys(capabilities).sort()).toEqual(['cancel', 'concurrentStatements', 'engineReadOnly']);
    for (const [flag, value] of Object.entries(capabilities)) expect(typeof value, flag).toBe('boolean');
  });
}
