/**
 * What a failed call to the model tells a caller: what the model server
 * answered (or that it could not be reached, or broke off its answer) is
 * AI_UPSTREAM_ERROR with the upstream status; anything else is mapped the one
 * common way, so a fault of ours is INTERNAL and says nothing of a path.
 */
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { upstreamError } from '../../src/ai/llm.ts';
import { SluiceError } from '../../src/errors.ts';

describe('upstreamError', () => {
  it('passes a SluiceError through', () => {
    const own = new SluiceError('VALIDATION_ERROR', 'Bad prompt.');
    expect(upstreamError(own)).toBe(own);
  });

  it('names the status the model server answered with', () => {
    const answered = OpenAI.APIError.generate(500, { message: 'upstream broke' }, undefined, new Headers());
    expect(upstreamError(answered)).toMatchObject({ code: 'AI_UPSTREAM_ERROR', status: 502, details: { upstreamStatus: 500 } });
  });

  it('says when the request was aborted or the server could not be reached', () => {
    expect(upstreamError(new OpenAI.APIUserAbortError()).message).toBe('The request to the model was aborted.');
    expect(upstreamError(new OpenAI.APIConnectionError({ message: 'Connection error.' }))).toMatchObject({ code: 'AI_UPSTREAM_ERROR', details: { upstreamStatus: null } });
  });

  it('makes an answer that broke off or could not be read AI_UPSTREAM_ERROR', () => {
    // What fetch throws when the connection drops while a streamed answer is read.
    const lost = new TypeError('terminated', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) });
    const garbled = new SyntaxError('Unexpected token < in JSON at position 0');
    for (const error of [lost, garbled]) {
      expect(upstreamError(error)).toMatchObject({ code: 'AI_UPSTREAM_ERROR', status: 502, details: { upstreamStatus: null } });
    }
  });

  it('leaves anything else to the common mapping: INTERNAL, no path, the original as the cause', () => {
    const ours = new TypeError("Cannot read properties of undefined (reading 'choices') at /srv/sluice/src/ai/chat.ts:61");
    const mapped = upstreamError(ours);
    expect([mapped.code, mapped.status, mapped.message]).toEqual(['INTERNAL', 500, 'The request to the model failed unexpectedly.']);
    expect(mapped.message).not.toContain('/srv');
    expect(mapped.cause).toBe(ours);
  });
});
