import { afterEach, describe, expect, it } from 'vitest';
import {
  forgetSecrets,
  isSecretParam,
  looksLikeSecret,
  redact,
  redactDeep,
  registerSecret,
  registerUrlSecrets,
  stringifyRedacted,
  urlWithoutCredentials,
} from '../../src/io/secrets.js';

afterEach(forgetSecrets);

describe('redact', () => {
  it('does nothing before a secret is registered', () => {
    const v = { a: 'sk-live-123' };
    expect(redactDeep(v)).toBe(v);
    expect(redact('sk-live-123')).toBe('sk-live-123');
  });
  it('ignores placeholders too short to be keys, which would mangle ordinary text', () => {
    registerSecret('x');
    registerSecret('EMPTY');
    expect(redact('text EMPTY')).toBe('text EMPTY');
  });
  it('replaces every occurrence, and the URL-encoded and JSON-escaped forms', () => {
    registerSecret('sk-a/b"c');
    expect(redact('Bearer sk-a/b"c and sk-a/b"c')).toBe('Bearer [redacted] and [redacted]');
    expect(redact('key=sk-a%2Fb%22c')).toBe('key=[redacted]');
    expect(redact('{"auth":"sk-a/b\\"c"}')).toBe('{"auth":"[redacted]"}');
  });
  it('walks records, keys included, without touching prototypes', () => {
    registerSecret('sk-123456');
    const rec = JSON.parse(
      '{"reply": "you sent sk-123456", "n": 3, "error": {"message": "x sk-123456"}, "list": ["sk-123456", 1, null], "__proto__": {"sk-123456": true}}',
    );
    const out = redactDeep(rec);
    expect(JSON.stringify(out)).not.toContain('sk-123456');
    expect(out.n).toBe(3);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toContain('__proto__');
  });
});

describe('stringifyRedacted', () => {
  it('is JSON.stringify when no secret is in the text', () => {
    registerSecret('sk-123456');
    const v = { a: 'b', n: [1, 2] };
    expect(stringifyRedacted(v, 2)).toBe(JSON.stringify(v, null, 2));
  });
  it('finds a key that JSON escapes, and keeps the JSON valid', () => {
    registerSecret('sk-a\\b"c1234');
    const text = stringifyRedacted({ reply: 'echo sk-a\\b"c1234!', ['sk-a\\b"c1234']: 1 });
    expect(JSON.parse(text)).toEqual({ reply: 'echo [redacted]!', '[redacted]': 1 });
  });
});

describe('urlWithoutCredentials', () => {
  it.each([
    ['https://user:pw@example.com/v1', 'https://example.com/v1'],
    ['https://example.com/v1?api-key=sk-1&api-version=2024', 'https://example.com/v1?api-version=2024'],
    ['https://example.com/v1?key=a&token=b&access_token=c&X-Api-Key=d', 'https://example.com/v1'],
    ['https://example.com/v1', 'https://example.com/v1'],
    ['https://example.com/v1/', 'https://example.com/v1/'],
    ['not a url?key=sk-1', 'not a url'],
    ['ftp//user:sk-1@host/x?token=2', 'host/x'],
    ['htps://user:sk-1@host/v1', 'htps://host/v1'],
  ])('%s -> %s', (input, output) => expect(urlWithoutCredentials(input)).toBe(output));
  it('knows credential parameter names', () => {
    for (const n of ['key', 'api_key', 'apiKey', 'api-key', 'token', 'auth_token', 'client_secret', 'password', 'sig'])
      expect(isSecretParam(n)).toBe(true);
    for (const n of ['api-version', 'model', 'region']) expect(isSecretParam(n)).toBe(false);
  });
});

describe('looksLikeSecret', () => {
  it('tells variable names from keys', () => {
    for (const n of ['OPENAI_API_KEY', 'MY_KEY_2', 'groq_key', 'TOGETHER_API_KEY'])
      expect(looksLikeSecret(n)).toBe(false);
    for (const n of ['sk-proj-abc123', 'gsk_3f9aK2lmQ8xZ0pWv7TnB', 'a'.repeat(41)])
      expect(looksLikeSecret(n)).toBe(true);
  });
});

describe('registerUrlSecrets', () => {
  it("cuts a base URL's password, user and key-like query values out of later text, as typed and decoded", () => {
    forgetSecrets();
    registerUrlSecrets(
      'https://user-0123456789:pa%24ss-0123456789@h.example/v1?api-key=tok-0123456789&region=eu-west-1',
    );
    expect(redact('user-0123456789 pa$ss-0123456789 pa%24ss-0123456789 tok-0123456789 eu-west-1')).toBe(
      '[redacted] [redacted] [redacted] [redacted] eu-west-1',
    );
    forgetSecrets();
  });
});
