/**
 * The one mapping from anything thrown to a contract error, and the error's
 * plain-data form across a worker boundary.
 */
import { describe, expect, it } from 'vitest';
import { fromErrorData, SluiceError, toErrorData, toSluiceError } from '../src/errors.ts';

describe('toSluiceError', () => {
  it('keeps a SluiceError as it is, status override included', () => {
    const full = new SluiceError('INTERNAL', 'The disk is full.', { reason: 'STORAGE_FULL' }, 507);
    expect(toSluiceError(full)).toBe(full);
    expect(toSluiceError(full).status).toBe(507);
  });

  it('makes a lost connection a retryable SQL_ERROR', () => {
    const e = toSluiceError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }));
    expect(e.code).toBe('SQL_ERROR');
    expect(e.details).toMatchObject({ retryable: true, reason: 'ECONNREFUSED' });
    expect(e.message).not.toContain('127.0.0.1');
  });

  it('explains DuckDB running out of memory and NaN in a constrained numeric', () => {
    expect(toSluiceError(new Error('Out of Memory Error: failed to allocate')).details).toEqual({ reason: 'OUT_OF_MEMORY' });
    expect(toSluiceError(new Error('Could not convert string "NaN" to \'DECIMAL(10,2)\'')).details).toEqual({ reason: 'NUMERIC_NAN' });
  });

  it('answers a full disk (an errno, a quota, DuckDB’s words) with 507 and reason STORAGE_FULL, and no path', () => {
    const enospc = Object.assign(new Error("ENOSPC: no space left on device, write '/var/lib/sluice/artifacts/downloads/x.jsonl'"), { code: 'ENOSPC', errno: -28 });
    const quota = Object.assign(new Error('EDQUOT: disk quota exceeded, write'), { code: 'EDQUOT' });
    const duckdb = new Error('IO Error: Could not write file "/var/lib/sluice/x.csv": No space left on device');
    for (const error of [enospc, quota, duckdb]) {
      const e = toSluiceError(error, 'The download failed unexpectedly.');
      expect([e.code, e.status, e.details]).toEqual(['INTERNAL', 507, { reason: 'STORAGE_FULL' }]);
      expect(e.message).not.toContain('/var');
      expect(e.cause).toBe(error);
    }
    expect(toErrorData(enospc)).toMatchObject({ code: 'INTERNAL', status: 507, details: { reason: 'STORAGE_FULL' } });
  });

  it('hides anything else behind INTERNAL, keeping the original only as the cause', () => {
    const original = new Error('ENOENT: no such file /var/secret/path');
    const e = toSluiceError(original, 'The query failed unexpectedly.');
    expect(e.code).toBe('INTERNAL');
    expect(e.message).toBe('The query failed unexpectedly.');
    expect(e.message).not.toContain('/var');
    expect(e.cause).toBe(original);
    expect(toSluiceError('a string').code).toBe('INTERNAL');
    expect(toSluiceError(null).code).toBe('INTERNAL');
  });
});

describe('ErrorData across a worker boundary', () => {
  it('carries code, message, details and the status override', () => {
    const sent = toErrorData(new SluiceError('INTERNAL', 'The disk is full.', { reason: 'STORAGE_FULL' }, 507));
    const received = fromErrorData(structuredClone(sent));
    expect(received.code).toBe('INTERNAL');
    expect(received.details).toEqual({ reason: 'STORAGE_FULL' });
    expect(received.status).toBe(507);
  });

  it('sends nothing of an unknown error but INTERNAL', () => {
    const sent = toErrorData(new Error('stack and /paths'));
    expect(sent).toEqual({ code: 'INTERNAL', message: 'An internal error occurred.' });
  });

  it('keeps the status when details are added', () => {
    expect(new SluiceError('INTERNAL', 'starting', { retryable: true }, 503).withDetails({ queryId: 'q' }).status).toBe(503);
  });
});
