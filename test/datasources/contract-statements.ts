/**
 * What a driver says about statements: the read-only check refuses every
 * write, setting, lock and second statement of the fixture's corpus and
 * passes its reads with their kind and parameter count; the engine's own
 * boundary stops a write the check never saw; errors carry the contract's
 * codes and the engine's position.
 */
import { expect, it } from 'vitest';
import { SluiceError } from '../../src/errors.ts';
import { skipNote } from '../helpers/skip-note.ts';
import { failureOf } from './contract-export.ts';
import type { ContractContext } from './driver-contract.ts';

export function statementCases({ name, fixture, under, exports, paths }: ContractContext): void {
  const { refused, accepted, syntaxError, unknownColumn, engineWrite } = fixture.statements;

  it.each(refused)('the read-only check refuses %s', async (sql) => {
    const error = await failureOf(under.driver.checkStatement(sql));
    expect(error.code, error.message).toBe('READ_ONLY_VIOLATION');
  });

  it.each(accepted)('the read-only check passes $sql, and the export runs it', async ({ sql, kind, paramCount, text, offset }) => {
    const checked = await under.driver.checkStatement(sql);
    expect(checked).toMatchObject({ kind, paramCount });
    if (text !== undefined) expect(checked.sql).toBe(text);
    if (offset !== undefined) expect(checked.offset).toBe(offset);
    // What the check cut from the text is what the export half runs: it must run.
    const run = await exports.run(under, sql, { params: Array.from({ length: paramCount }, () => null) });
    expect(run.result.cappedBy).toBeNull();
    expect(run.columns.length).toBeGreaterThan(0);
  });

  const engineReadOnly = under.driver.capabilities.engineReadOnly;
  const notReadOnly = `${name} declares capabilities.engineReadOnly = false`;
  const boundaryTitle = skipNote(!engineReadOnly, 'the engine refuses a write that passed no check, and nothing is written', notReadOnly);
  it.skipIf(!engineReadOnly)(boundaryTitle, async () => {
    expect((await failureOf(under.driver.checkStatement(engineWrite.sql))).code).toBe('READ_ONLY_VIOLATION');
    const before = await under.admin(engineWrite.probe);
    await failureOf(exports.runUnchecked(under, { sql: engineWrite.sql, kind: 'select' }));
    expect(await under.admin(engineWrite.probe)).toEqual(before);
  });

  // Apart from the case above, so a wrong error code does not hide whether the write happened.
  const refusalTitle = skipNote(!engineReadOnly, "answers the engine's refusal of a write with READ_ONLY_VIOLATION", notReadOnly);
  it.skipIf(!engineReadOnly)(refusalTitle, async () => {
    const error = await failureOf(exports.runUnchecked(under, { sql: engineWrite.sql, kind: 'select' }));
    expect(error.code, error.message).toBe('READ_ONLY_VIOLATION');
  });

  it('answers a syntax error with the code and position the engine gives', async () => {
    const error = await failureOf(under.driver.checkStatement(syntaxError.sql));
    expect(error.code, error.message).toBe(syntaxError.code);
    if (syntaxError.position !== undefined) expect(error.details).toMatchObject({ position: syntaxError.position });
  });

  it('fails an export of an unknown column with SQL_ERROR at its position, and serves the next export', async () => {
    const error = await failureOf(exports.run(under, unknownColumn.sql));
    expect(error.code, error.message).toBe('SQL_ERROR');
    if (unknownColumn.position !== undefined) expect(error.details).toMatchObject({ position: unknownColumn.position });
    const next = await exports.run(under, fixture.numbers.sql, { limits: { maxRows: 2 } });
    expect(next.result).toMatchObject({ rows: 2, cappedBy: 'maxRows' });
  });

  for (const path of paths) {
    const { sql, params } = path.bind(fixture.statements.failsInStream);

    it(`fails an export the engine stops with an error mid-stream, and serves the next export (${path.label})`, async () => {
      await failureOf(exports.run(under, sql, { params }));
      const next = await exports.run(under, fixture.numbers.sql, { limits: { maxRows: 2 } });
      expect(next.result).toMatchObject({ rows: 2, cappedBy: 'maxRows' });
    });

    it(`answers an engine error mid-stream with SQL_ERROR (${path.label})`, async () => {
      const error = await failureOf(exports.run(under, sql, { params }));
      expect(error.code, error.message).toBe('SQL_ERROR');
    });
  }

  it("maps the engine's own error, and leaves anything else to toSluiceError", async () => {
    const raw = await under.engineError(unknownColumn.sql);
    expect(raw).not.toBeInstanceOf(SluiceError);
    const mapped = under.exports.mapError(raw);
    expect(mapped).toBeInstanceOf(SluiceError);
    expect(mapped!.code).toBe('SQL_ERROR');
    if (unknownColumn.position !== undefined) expect(mapped!.details).toMatchObject({ position: unknownColumn.position });
    expect(under.exports.mapError(new Error('a fault of our own'))).toBeUndefined();
    expect(under.exports.mapError(new SluiceError('QUERY_CANCELLED', 'already a contract error'))).toBeUndefined();
  });

}
