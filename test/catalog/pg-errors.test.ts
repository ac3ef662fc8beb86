/**
 * What a failure of the PostgreSQL catalog tells a caller: an unreachable or
 * unwilling database is a retryable STORAGE_UNAVAILABLE, the catalog's own
 * SQL failing is INTERNAL (the caller's request was fine), and anything else
 * is mapped the one common way, never with the driver's words in it.
 */
import { describe, expect, it } from 'vitest';
import { catalogError } from '../../src/catalog/postgres/pg-errors.ts';
import { SluiceError, toSluiceError } from '../../src/errors.ts';

const URL_IN_MESSAGE = 'postgres://sluice:secret@catalog.internal:5432/sluice';

function pgError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code, severity: 'ERROR' });
}

describe('catalogError', () => {
  it('passes a SluiceError through', () => {
    const own = new SluiceError('NOT_FOUND', 'No such artifact.');
    expect(catalogError(own)).toBe(own);
  });

  it('makes an unreachable database and a lost connection a retryable STORAGE_UNAVAILABLE', () => {
    const refused = Object.assign(new Error(`connect ECONNREFUSED ${URL_IN_MESSAGE}`), { code: 'ECONNREFUSED' });
    for (const error of [refused, new Error('Connection terminated unexpectedly'), pgError('57P01', 'terminating connection due to administrator command')]) {
      const mapped = catalogError(error);
      expect(mapped).toMatchObject({ code: 'STORAGE_UNAVAILABLE', status: 503, details: { retryable: true } });
      expect(mapped.message).not.toContain('secret');
      expect(mapped.cause).toBe(error);
    }
  });

  it('keeps its own SQL failing INTERNAL, not a SQL_ERROR of the caller', () => {
    const error = pgError('23505', 'duplicate key value violates unique constraint "artifacts_pkey"');
    const mapped = catalogError(error);
    expect([mapped.code, mapped.status, mapped.message]).toEqual(['INTERNAL', 500, 'The artifact catalog failed unexpectedly.']);
    expect(mapped.cause).toBe(error);
  });

  it('leaves anything else to the common mapping: a full disk is a 507, the rest INTERNAL with no path', () => {
    const full = Object.assign(new Error('ENOSPC: no space left on device, write /var/lib/sluice/x'), { code: 'ENOSPC' });
    const unknown = new TypeError(`Cannot read properties of undefined (at ${URL_IN_MESSAGE})`);
    for (const error of [full, unknown]) {
      const mapped = catalogError(error);
      const common = toSluiceError(error, 'The artifact catalog failed unexpectedly.');
      expect([mapped.code, mapped.status, mapped.message, mapped.details]).toEqual([common.code, common.status, common.message, common.details]);
      expect(mapped.message).not.toMatch(/secret|\/var/);
      expect(mapped.cause).toBe(error);
    }
    expect(catalogError(full).status).toBe(507);
  });
});
