/** PostgreSQL's own errors in the contract's codes, mapped by its driver before anything generic. */
import { describe, expect, it } from 'vitest';
import { pgError, toPgSluiceError } from '../../../src/datasources/postgres/pg-errors.ts';

describe('pgError', () => {
  it('turns a PostgreSQL error into SQL_ERROR with its position and SQLSTATE', () => {
    const e = toPgSluiceError({ code: '42703', severity: 'ERROR', message: 'column "x" does not exist', position: '8', hint: 'Perhaps y' });
    expect(e.code).toBe('SQL_ERROR');
    expect(e.message).toBe('column "x" does not exist');
    expect(e.details).toEqual({ sqlState: '42703', position: 8, hint: 'Perhaps y' });
  });

  it('names a refused write READ_ONLY_VIOLATION and a statement timeout QUERY_TIMEOUT', () => {
    expect(toPgSluiceError({ code: '25006', severity: 'ERROR', message: 'cannot execute INSERT in a read-only transaction' }).code).toBe('READ_ONLY_VIOLATION');
    expect(toPgSluiceError({ code: '57014', severity: 'ERROR', message: 'canceling statement due to statement timeout' }).code).toBe('QUERY_TIMEOUT');
  });

  it('leaves what the server did not report to the generic mapping', () => {
    expect(pgError(Object.assign(new Error('read EPIPE'), { code: 'EPIPE' }))).toBeUndefined();
    expect(pgError(new Error('boom'))).toBeUndefined();
    expect(toPgSluiceError(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })).details).toMatchObject({ retryable: true });
  });

  it('answers DATASOURCE_UNAVAILABLE (503, retryable) when the server cannot be reached or is shutting down', () => {
    for (const error of [Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }), { code: '57P03', severity: 'FATAL', message: 'the database system is starting up' }]) {
      const mapped = toPgSluiceError(error);
      expect(mapped.code).toBe('DATASOURCE_UNAVAILABLE');
      expect(mapped.status).toBe(503);
      expect(mapped.details).toMatchObject({ retryable: true });
      expect(mapped.message).not.toMatch(/127\.0\.0\.1/);
    }
  });
});
