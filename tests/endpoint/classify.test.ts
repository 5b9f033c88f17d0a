import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { describe, expect, it } from 'vitest';
import { classifyError } from '../../src/endpoint/classify.js';
import { MalformedResponseError } from '../../src/endpoint/completion.js';

const status = (code: number, body: unknown, headers: Record<string, string> = {}) =>
  APIError.generate(code, body === undefined ? undefined : { error: body }, undefined, new Headers(headers));

describe('classifyError', () => {
  it.each([
    ['401', status(401, { message: 'Incorrect API key provided', code: 'invalid_api_key' }), 'auth', true],
    ['403', status(403, { message: 'forbidden' }), 'auth', true],
    [
      '404 model_not_found',
      status(404, { message: 'The model `x` does not exist', code: 'model_not_found' }),
      'auth',
      true,
    ],
    ['404 other', status(404, { message: 'no route' }), 'provider', false],
    ['429', status(429, { message: 'slow down' }), 'rate_limit', false],
    [
      '429 insufficient_quota',
      status(429, {
        message: 'You exceeded your current quota',
        type: 'insufficient_quota',
        code: 'insufficient_quota',
      }),
      'provider',
      true,
    ],
    ['402', status(402, { message: 'Insufficient credits' }), 'provider', true],
    ['500', status(500, { message: 'oops' }), 'provider', false],
    ['503', status(503, undefined), 'provider', false],
    ['400', status(400, { message: 'bad field' }), 'provider', false],
    ['408', status(408, { message: 'too slow' }), 'timeout', false],
    ['connection', new APIConnectionError({ cause: new Error('ECONNREFUSED') }), 'network', false],
    ['SDK timeout', new APIConnectionTimeoutError(), 'timeout', false],
    ['user abort', new APIUserAbortError(), 'timeout', false],
    ['invalid JSON', new SyntaxError('Unexpected end of JSON input'), 'malformed', false],
    ['no choices', new MalformedResponseError('no choices'), 'malformed', false],
    ['dropped body', new TypeError('terminated'), 'network', false],
  ])('%s', (_name, err, type, fatal) => {
    const f = classifyError(err, false);
    expect(f.type).toBe(type);
    expect(f.fatal).toBe(fatal);
    expect(f.message.length).toBeGreaterThan(0);
  });

  it('calls anything a timeout when our own timer aborted the attempt', () => {
    expect(classifyError(new APIUserAbortError(), true).type).toBe('timeout');
    expect(classifyError(new DOMException('aborted', 'AbortError'), true).type).toBe('timeout');
  });

  it('reads Retry-After from 429 and 5xx', () => {
    expect(classifyError(status(429, {}, { 'retry-after': '3' }), false).retryAfterMs).toBe(3000);
    expect(classifyError(status(503, {}, { 'retry-after-ms': '40' }), false).retryAfterMs).toBe(40);
    expect(classifyError(status(400, {}, { 'retry-after': '3' }), false).retryAfterMs).toBeNull();
  });

  it('keeps the status', () => {
    expect(classifyError(status(502, {}), false).status).toBe(502);
  });
});
