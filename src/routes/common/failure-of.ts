/**
 * What a thrown error answers as: the one mapping the app's error handler
 * uses, and that an audit of the request reads back, so both name the
 * same code. A body-limit or body-read failure comes from Hono as an
 * HTTPException; everything else passes through toSluiceError.
 */
import { HTTPException } from 'hono/http-exception';
import { SluiceError, toSluiceError } from '../../errors.ts';

export function failureOf(error: unknown, bodyLimitBytes: number): SluiceError {
  if (error instanceof HTTPException && error.status === 413) return new SluiceError('PAYLOAD_TOO_LARGE', `The request body is larger than ${bodyLimitBytes} bytes.`);
  if (error instanceof HTTPException && error.status < 500) return new SluiceError('VALIDATION_ERROR', 'The request body could not be read: send one JSON object.');
  return toSluiceError(error);
}
