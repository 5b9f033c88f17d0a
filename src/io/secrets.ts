/**
 * Keeping the API key out of everything bas records, prints or renders. An endpoint may echo
 * the request's Authorization header in an error body or a reply, so the key's value is
 * registered once it is known, and every string from outside is passed through `redact` at
 * the few places where text leaves the process: the record writer, the run file writer, the
 * error and warning printers and the error classifier. Also here: taking credentials out of a
 * URL before it is stored or shown.
 */

/** What a secret is replaced with. */
const REDACTED = '[redacted]';

/** The registered secrets in every form they may be echoed in, longest first. */
let forms: string[] = [];

/**
 * Shorter values are placeholders, not secrets: local servers take any key, and users give
 * `x` or `EMPTY`. Cutting those out of every reply would mangle ordinary text.
 */
const MIN_SECRET_LENGTH = 8;

/**
 * Registers a secret (the API key) so that `redact` removes it from then on. Its URL-encoded
 * and JSON-escaped forms are registered too, since an echo may come back in either. Values
 * shorter than MIN_SECRET_LENGTH are ignored.
 */
export function registerSecret(value: string): void {
  if (value.length < MIN_SECRET_LENGTH) return;
  const all = new Set([...forms, value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1)]);
  forms = [...all].filter((f) => f !== '').sort((a, b) => b.length - a.length);
}

/** Forgets every registered secret (tests). */
export function forgetSecrets(): void {
  forms = [];
}

/** `text` with every registered secret replaced by `[redacted]`. */
export function redact(text: string): string {
  for (const f of forms) if (text.includes(f)) text = text.split(f).join(REDACTED);
  return text;
}

/**
 * A copy of `value` (plain data: objects, arrays, strings, numbers) with every string in it,
 * object keys included, passed through `redact`. Returns `value` itself when no secret is
 * registered, so runs of the built-in policies pay nothing.
 */
export function redactDeep<T>(value: T): T {
  if (forms.length === 0) return value;
  return walk(value) as T;
}

/**
 * `JSON.stringify(value, null, space)` with every registered secret cut out of its strings.
 * The JSON text is searched first, which is cheap, and the value copied and redacted only
 * when a secret is found: JSON escapes a string one character at a time, so a string holding
 * a secret yields text holding the secret's JSON-escaped form, which is registered.
 */
export function stringifyRedacted(value: unknown, space?: number): string {
  const text = JSON.stringify(value, null, space);
  if (forms.length === 0 || !forms.some((f) => text.includes(f))) return text;
  return JSON.stringify(walk(value), null, space);
}

function walk(value: unknown): unknown {
  if (typeof value === 'string') return redact(value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(walk);
  if (value instanceof Map || value instanceof Set || value instanceof Date) return value;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value)) {
    // defineProperty, so a key such as "__proto__" stays an ordinary key.
    Object.defineProperty(out, redact(k), {
      value: walk((value as Record<string, unknown>)[k]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** Query parameter names (lower case, without `-` and `_`) that carry credentials. */
const SECRET_PARAMS = new Set([
  'key',
  'apikey',
  'token',
  'accesstoken',
  'authtoken',
  'auth',
  'authorization',
  'secret',
  'clientsecret',
  'password',
  'passwd',
  'pass',
  'pwd',
  'sig',
  'signature',
  'bearer',
  'session',
  'sessionid',
  'code',
  'credential',
  'credentials',
]);

/** Whether a query parameter's name says it carries a credential. */
export function isSecretParam(name: string): boolean {
  let n = '';
  for (const ch of name.toLowerCase()) if (ch !== '-' && ch !== '_' && ch !== '.') n += ch;
  return (
    SECRET_PARAMS.has(n) || n.endsWith('key') || n.endsWith('token') || n.endsWith('secret') || n.endsWith('password')
  );
}

/**
 * `url` without credentials: `user:password@` and any query parameter whose name says it
 * holds a key, token, secret or password. Text that is not a URL loses everything from the
 * first `?`, and everything up to its last `@`, since it may be a URL typed wrong.
 */
export function urlWithoutCredentials(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    const cut = url.indexOf('?');
    let text = cut < 0 ? url : url.slice(0, cut);
    const scheme = text.indexOf('://');
    const start = scheme < 0 ? 0 : scheme + 3;
    const at = text.lastIndexOf('@');
    if (at >= start) text = text.slice(0, start) + text.slice(at + 1);
    return text;
  }
  let changed = false;
  if (u.username || u.password) {
    u.username = '';
    u.password = '';
    changed = true;
  }
  for (const name of [...u.searchParams.keys()]) {
    if (isSecretParam(name)) {
      u.searchParams.delete(name);
      changed = true;
    }
  }
  if (!changed) return url;
  let text = u.toString();
  while (text.endsWith('/') && text.length > u.origin.length + 1) text = text.slice(0, -1);
  return text;
}

/**
 * Registers the credentials a URL carries (`user:password@`, and the values of query
 * parameters whose names say they hold a key) as secrets, as typed and decoded, so that
 * every message that quotes the URL, or an endpoint's echo of it, has them cut out.
 */
export function registerUrlSecrets(url: string): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return; // not a URL: the flag's check refuses it, quoting it without credentials
  }
  const values = [u.username, u.password];
  for (const [name, value] of u.searchParams) if (isSecretParam(name)) values.push(value);
  for (const v of values) {
    if (v === '') continue;
    registerSecret(v);
    try {
      registerSecret(decodeURIComponent(v));
    } catch {
      // a malformed %-escape: the value as typed is registered
    }
  }
}

/**
 * Whether `text`, given where a NAME was expected (an environment variable's), looks like a
 * secret value instead: long, or mixing cases with digits as keys do. Names are conventionally
 * short and upper case, so this errs towards keeping a value out of a message.
 */
export function looksLikeSecret(text: string): boolean {
  if (text.length > 40) return true;
  let lower = false;
  let digit = false;
  for (const ch of text) {
    if (ch >= 'a' && ch <= 'z') lower = true;
    else if (ch >= 'A' && ch <= 'Z') continue;
    else if (ch >= '0' && ch <= '9') digit = true;
    else if (ch !== '_') return true;
  }
  return text.length >= 16 && lower && digit;
}
