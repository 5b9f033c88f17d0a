import { APIConnectionError, APIError } from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { forgetSecrets, registerSecret } from '../../src/io/secrets.js';
import { classifyError } from '../../src/endpoint/classify.js';

const KEY = 'sk-proj-0123456789abcdefXYZ';
afterEach(forgetSecrets);

describe('error messages built from what an endpoint sent', () => {
  it.each([400, 401, 403, 404, 429, 500])('HTTP %i: the key is cut out', (code) => {
    registerSecret(KEY);
    const err = APIError.generate(
      code,
      { error: { message: `Incorrect API key provided: ${KEY}` } },
      undefined,
      new Headers(),
    );
    const f = classifyError(err, false);
    expect(f.message).not.toContain(KEY);
    expect(f.message).toContain('[redacted]');
  });
  it('no piece of the key is left where a long message is shortened', () => {
    registerSecret(KEY);
    // The key straddles the point where the message is cut to 300 characters.
    const err = APIError.generate(500, { error: { message: `${'x'.repeat(290)}${KEY}` } }, undefined, new Headers());
    const f = classifyError(err, false);
    expect(f.message).not.toContain(KEY.slice(0, 10));
  });
  it('connection errors too', () => {
    registerSecret(KEY);
    const f = classifyError(new APIConnectionError({ cause: new Error(`refused for ${KEY}`) }), false);
    expect(f.message).not.toContain(KEY);
  });
});
