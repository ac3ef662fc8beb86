/**
 * What a caller is told when a bytes backend fails: reachability problems
 * are retryable STORAGE_UNAVAILABLE, refusals need an operator, a full disk
 * is a 507, anything else INTERNAL; and never a word of the backend's own
 * message, which can name hosts, buckets and paths.
 */
import { describe, expect, it } from 'vitest';
import { storageError } from '../../../src/artifacts/bytes/storage-errors.ts';
import { SluiceError } from '../../../src/errors.ts';

const HOST = 'bucket-7.storage.internal.example';

function sdkError(name: string, status: number | undefined, message = `${name} at https://${HOST}/key`): Error {
  return Object.assign(new Error(message), { name, $metadata: { httpStatusCode: status } });
}

function systemError(code: string): Error {
  return Object.assign(new Error(`${code}: connect ${HOST}:443 (/var/lib/sluice/artifacts)`), { code });
}

describe('storage errors', () => {
  it.each([
    ['a refused connection', systemError('ECONNREFUSED'), 'ECONNREFUSED'],
    ['a name that does not resolve', systemError('ENOTFOUND'), 'ENOTFOUND'],
    ['a timeout', sdkError('TimeoutError', undefined), 'TimeoutError'],
    ['a 503 left after retries', sdkError('ServiceUnavailable', 503), 'ServiceUnavailable'],
    ['an unnamed 502', sdkError('Unknown', 502), 'HTTP_502'],
    ['throttling', sdkError('SlowDown', 503), 'SlowDown'],
    ['every address of a host refused', new AggregateError([systemError('ECONNREFUSED'), systemError('ECONNREFUSED')], 'x'), 'ECONNREFUSED'],
    ['a wrapped reset', Object.assign(new Error('fetch failed'), { cause: systemError('ECONNRESET') }), 'ECONNRESET'],
  ])('%s is STORAGE_UNAVAILABLE, 503, retryable', (_title, error, reason) => {
    const mapped = storageError(error);
    expect([mapped.code, mapped.status, mapped.details]).toEqual(['STORAGE_UNAVAILABLE', 503, { retryable: true, reason }]);
    expect(mapped.message).not.toContain(HOST);
    expect(mapped.cause).toBe(error);
  });

  it.each([
    ['wrong credentials', sdkError('InvalidAccessKeyId', 403), 'InvalidAccessKeyId'],
    ['a missing bucket', sdkError('NoSuchBucket', 404), 'NoSuchBucket'],
    ['an unnamed 403', sdkError('Unknown', 403), 'HTTP_403'],
    ['a read-only disk', systemError('EROFS'), 'EROFS'],
  ])('%s is STORAGE_UNAVAILABLE that only an operator can fix', (_title, error, reason) => {
    const mapped = storageError(error);
    expect([mapped.code, mapped.status, mapped.details]).toEqual(['STORAGE_UNAVAILABLE', 503, { retryable: false, reason }]);
    expect(mapped.message).not.toContain(HOST);
  });

  it('reports a full disk as 507, as a full export does', () => {
    const mapped = storageError(systemError('ENOSPC'));
    expect([mapped.code, mapped.status, mapped.details]).toEqual(['INTERNAL', 507, { reason: 'STORAGE_FULL' }]);
    expect(mapped.message).not.toContain('/var/lib');
  });

  it('passes contract errors through and turns anything else into INTERNAL without its message', () => {
    const own = new SluiceError('ARTIFACT_CORRUPT', 'bad bytes');
    expect(storageError(own)).toBe(own);
    const odd = storageError(sdkError('InvalidArgument', 400));
    expect(odd.code).toBe('INTERNAL');
    expect(odd.message).not.toContain(HOST);
  });
});
