/**
 * Keeping the API key out of everything bas records, prints or renders. An endpoint may echo
 * the request's Authorization header in an error body or a reply, so the key's value is
 * registered once it is known, and every string from outside is passed through `redact` at
 * the few places where text leaves the process: the record writer, the run file writer, the
 * error and warning printers, and `outsideText`, which every provider message goes through.
 * An echo may split the key with characters a reader does not see (an escape sequence, a
 * zero-width space, a NUL): the search looks through them (hidden-chars.ts), and the whole
 * stretch, hidden characters included, is replaced. Also here: taking credentials out of a
 * URL before it is stored or shown.
 */
import { nextHidden, sequenceEnd } from './hidden-chars.js';
import { currentRun } from './std.js';

/** What a secret is replaced with; a cut of outside text never falls inside it. */
export const REDACTED = '[redacted]';

/**
 * The registered secrets in every form they may be echoed in, longest first. A run of the CLI
 * inside another process (src/io/std.ts) keeps its own list, so one run's key never changes
 * another's output; it starts from the process's list, so nothing registered before is lost.
 */
let processForms: string[] = [];
const runForms = new WeakMap<object, string[]>();

function secretForms(): string[] {
  const run = currentRun();
  return run === undefined ? processForms : (runForms.get(run) ?? processForms);
}

function setSecretForms(list: string[]): void {
  const run = currentRun();
  if (run === undefined) processForms = list;
  else runForms.set(run, list);
}

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
  const all = new Set([...secretForms(), value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1)]);
  setSecretForms([...all].filter((f) => f !== '').sort((a, b) => b.length - a.length));
}

/** Forgets every registered secret (tests). */
export function forgetSecrets(): void {
  setSecretForms([]);
}

/**
 * `text` with every registered secret replaced by `[redacted]`, also where characters a reader
 * does not see (escape sequences, controls, zero-width and bidi characters) are mixed into it:
 * then the stretch from the secret's first to its last character goes, hidden ones included.
 * Everything else of `text` is kept as it was.
 */
export function redact(text: string): string {
  const forms = secretForms();
  if (forms.length === 0) return text;
  if (nextHidden(text, 0) < 0) {
    for (const f of forms) if (text.includes(f)) text = text.split(f).join(REDACTED);
    return text;
  }
  return redactSeeingThrough(text, forms);
}

/** `redact` for text with hidden characters: searches the visible skeleton, cuts the original. */
function redactSeeingThrough(text: string, forms: readonly string[]): string {
  // The visible skeleton, as pieces of `text`, and where each piece starts in both.
  const pieces: string[] = [];
  const skelAt: number[] = [];
  const textAt: number[] = [];
  let length = 0;
  for (let i = 0; i < text.length;) {
    const hidden = nextHidden(text, i);
    const end = hidden < 0 ? text.length : hidden;
    if (end > i) {
      pieces.push(text.slice(i, end));
      skelAt.push(length);
      textAt.push(i);
      length += end - i;
    }
    if (hidden < 0) break;
    const seq = sequenceEnd(text, hidden);
    i = seq > hidden ? seq : hidden + (text.codePointAt(hidden)! > 0xffff ? 2 : 1);
  }
  const skeleton = pieces.join('');
  const original = (k: number): number => {
    let lo = 0;
    let hi = skelAt.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (skelAt[mid]! <= k) lo = mid;
      else hi = mid - 1;
    }
    return textAt[lo]! + (k - skelAt[lo]!);
  };
  const spans: Array<[number, number]> = [];
  for (const f of forms) {
    for (let at = skeleton.indexOf(f); at >= 0; at = skeleton.indexOf(f, at + f.length))
      spans.push([original(at), original(at + f.length - 1) + 1]);
  }
  if (spans.length === 0) return text;
  spans.sort((a, b) => a[0] - b[0]);
  let out = '';
  let from = 0;
  for (const [start, end] of spans) {
    if (end <= from) continue; // inside a stretch already cut
    if (start >= from) out += text.slice(from, start) + REDACTED;
    from = end;
  }
  return out + text.slice(from);
}

/**
 * A copy of `value` (plain data: objects, arrays, strings, numbers) with every string in it,
 * object keys included, passed through `redact`. Returns `value` itself when no secret is
 * registered, so runs of the built-in policies pay nothing.
 */
export function redactDeep<T>(value: T): T {
  if (secretForms().length === 0) return value;
  return walk(value) as T;
}

/** How JSON text writes a C0 control character: `\b`, `\f`, `\r`, `\u00XX`. */
const JSON_CONTROL = /\\(?:[bfr]|u00)/;

/**
 * `JSON.stringify(value, null, space)` with every registered secret cut out of its strings.
 * The JSON text is searched first, which is cheap, and the value copied and redacted only
 * when a secret is found or hidden characters may split one: JSON escapes a string one character at a time, so a string holding
 * a secret yields text holding the secret's JSON-escaped form, which is registered.
 */
export function stringifyRedacted(value: unknown, space?: number): string {
  const text = JSON.stringify(value, null, space);
  const forms = secretForms();
  if (forms.length === 0) return text;
  // JSON writes C0 controls as \b, \f, \r or \u00XX and leaves other hidden characters as
  // they are: any of them may split a secret, so such text is walked string by string.
  const mayHide = JSON_CONTROL.test(text) || nextHidden(text, 0) >= 0;
  if (!mayHide && !forms.some((f) => text.includes(f))) return text;
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
