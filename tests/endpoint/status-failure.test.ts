/**
 * One reading of an HTTP error status for live replies and batch output files (issue 15 §3):
 * the same body gives the same failure type and message whichever way it came.
 */
import { APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import { readBatchResult } from '../../src/endpoint/batch-file.js';
import { classifyError } from '../../src/endpoint/classify.js';

const live = (code: number, error: unknown) =>
  classifyError(APIError.generate(code, { error }, undefined, new Headers()), false);
const batch = (code: number, error: unknown) =>
  readBatchResult({ custom_id: 'task-0-r0', response: { status_code: code, body: { error } } }).error;

describe('live and batch replies agree', () => {
  it.each<[string, number, unknown, string]>([
    [
      'a 404 model_not_found (provider in batch files before)',
      404,
      { message: 'No such thing', code: 'model_not_found' },
      'auth',
    ],
    ['a 404 naming the model', 404, { message: 'The model `x` does not exist' }, 'auth'],
    ['a 404 of something else', 404, { message: 'no route' }, 'provider'],
    ['a 401', 401, { message: 'Incorrect API key provided' }, 'auth'],
    ['a 429', 429, { message: 'slow down' }, 'rate_limit'],
    ['a 408', 408, { message: 'too slow' }, 'timeout'],
    ['a 400 naming a parameter', 400, { message: 'bad value', param: 'temperature' }, 'provider'],
    ['a 503', 503, { message: 'overloaded' }, 'provider'],
  ])('%s', (_name, code, error, type) => {
    const a = live(code, error);
    const b = batch(code, error);
    expect(a.type).toBe(type);
    expect(b).toEqual({ type: a.type, message: a.message });
  });

  it('a status without a message says so, without repeating the status', () => {
    const a = classifyError(APIError.generate(500, undefined, undefined, new Headers()), false);
    expect(a.message).toBe('HTTP 500: no message');
  });

  it('a redirect says where to, that bas does not follow it, and keeps no credentials of the target', () => {
    const a = classifyError(
      APIError.generate(
        307,
        undefined,
        undefined,
        new Headers({ location: 'https://x.example/v1?api_key=s3cr3tvalue' }),
      ),
      false,
    );
    expect(a.type).toBe('provider');
    expect(a.message).toBe(
      'the endpoint redirected the request to https://x.example/v1 (HTTP 307); bas does not follow redirects: give the final URL as --base-url',
    );
  });
});
