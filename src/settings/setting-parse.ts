/**
 * The checks behind the settings declaration (setting-table.ts): each takes a flag's text or
 * a config value and the words naming where it came from, and returns the value or throws a
 * ConfigError naming the source, the value and the range.
 */
import { looksLikeSecret, urlWithoutCredentials } from '../io/secrets.js';
import { ConfigError } from '../errors/index.js';
import { MAX_TASKS } from '../task/config.js';
import { parseNumber } from './numbers.js';

export const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;
/** A `reasoning_effort` bas knows, least to most. */
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

/** Whether `v` is one of REASONING_EFFORTS. */
export function isReasoningEffort(v: string): v is ReasoningEffort {
  return (REASONING_EFFORTS as readonly string[]).includes(v);
}
/** Request fields that --sampling may not set: the runner owns them. */
export const RESERVED_FIELDS = ['model', 'messages', 'stream', 'stream_options', 'n', 'tools', 'tool_choice'];
/** Largest -n: the one cap that gen and validate share (src/task/config.ts). */
export const MAX_N = MAX_TASKS;
export const SECONDS = (name: string, v: unknown): number => parseNumber(v, name, 0.001, 86_400);
/** The largest `--max-response-mb` that can be honoured: V8 cannot make a string of 512 MiB or more, which a body becomes. */
export const MAX_RESPONSE_MB = 500;

export function parseModel(value: unknown, name: string): string {
  const model = String(value).trim();
  if (model === '') throw new ConfigError(`${name} must name a model, got an empty string`);
  // Built-in names are checked by resolveSettings, which may load the policies.
  return model;
}

const BUILTIN_PREFIX = 'builtin:';

/**
 * The policy a `builtin:NAME` model id names (any NAME: resolveSettings checks it), or null for
 * a model behind an endpoint. Read once, as settings are resolved: the plan says which it is.
 */
export function builtinName(model: string): string | null {
  return model.startsWith(BUILTIN_PREFIX) ? model.slice(BUILTIN_PREFIX.length) : null;
}

/** An http(s) URL without trailing slashes. */
export function parseBaseURL(value: unknown, name: string): string {
  const text = String(value).trim();
  let url: URL | null = null;
  try {
    url = new URL(text);
  } catch {
    // Reported below.
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new ConfigError(
      `${name} must be an http(s) URL, got ${JSON.stringify(urlWithoutCredentials(text.slice(0, 200)))}`,
    );
  }
  // A loop, not /\/+$/: that pattern is quadratic in a long run of slashes.
  let end = text.length;
  while (end > 0 && text[end - 1] === '/') end--;
  return text.slice(0, end);
}

export function parseExtra(value: unknown, name: string): Record<string, unknown> {
  let v = value;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      throw new ConfigError(`${name} must be a JSON object such as '{"top_p": 0.9}', got ${JSON.stringify(value)}`);
    }
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw new ConfigError(`${name} must be a JSON object of extra request fields, got ${JSON.stringify(value)}`);
  }
  const bad = Object.keys(v).find((k) => RESERVED_FIELDS.includes(k));
  if (bad) throw new ConfigError(`${name} may not set "${bad}": bas sets it itself`);
  const path = prototypeKey(v);
  if (path !== null)
    throw new ConfigError(
      `${name} may not hold the key "__proto__" (at ${path}): JavaScript would take it as the object's prototype and never send it, while run.json would record it as sent`,
    );
  return v as Record<string, unknown>;
}

/**
 * Where an own key `__proto__` sits in `value` (a dotted path), or null. Such a key is lost on
 * its way into a request body (assigning it sets a prototype), so what run.json records would
 * not be what was sent. Walked with a stack, not recursion: a parsed value may be deep.
 */
function prototypeKey(value: object): string | null {
  const stack: Array<[unknown, string]> = [[value, '']];
  while (stack.length > 0) {
    const [v, at] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (!Array.isArray(v) && Object.hasOwn(v, '__proto__')) return at === '' ? 'the top' : at;
    for (const [k, child] of Object.entries(v)) stack.push([child, at === '' ? k : `${at}.${k}`]);
  }
  return null;
}

export function parseEffort(value: unknown, name: string): string {
  const v = String(value).trim();
  if (!isReasoningEffort(v)) {
    throw new ConfigError(`${name} must be one of ${REASONING_EFFORTS.join(', ')}, got ${JSON.stringify(value)}`);
  }
  return v;
}

/** The NAME of an environment variable; the value is never echoed, since it may be a key. */
export function parseVarName(value: unknown, name: string): string {
  const v = String(value);
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(v)) {
    throw new ConfigError(`${name} must be the NAME of an environment variable (letters, digits, _), not its value`);
  }
  if (v.length > 64)
    throw new ConfigError(
      `${name} is ${v.length} characters long: give the NAME of the variable holding the key, not the key`,
    );
  if (looksLikeSecret(v))
    throw new ConfigError(`${name} looks like a key, not the NAME of the environment variable holding it`);
  return v;
}

/** A provider's registry name: lower-case letters, digits and dashes. */
export function parseProviderName(value: unknown, name: string): string {
  const v = String(value).trim().toLowerCase();
  if (!/^[a-z0-9][a-z0-9._-]{0,63}$/.test(v)) {
    throw new ConfigError(
      `${name} must be a provider name such as openai or prime (letters, digits, - . _), got ${JSON.stringify(String(value).slice(0, 80))}`,
    );
  }
  return v;
}

export function parseText(value: unknown, name: string): string {
  const v = String(value);
  if (v.trim() === '') throw new ConfigError(`${name} must not be empty`);
  return v;
}

/**
 * An interface to listen on. An IPv6 address may be given as a URL writes it (`[::1]`): its
 * brackets are dropped, since listen() takes the address bare (it failed on `[::1]`).
 */
export function parseHost(value: unknown, name: string): string {
  const v = parseText(value, name).trim();
  return /^\[[^\]]*\]$/.test(v) ? v.slice(1, -1) : v;
}

export function parseSwitch(value: unknown, name: string): boolean {
  if (typeof value === 'boolean') return value;
  throw new ConfigError(`${name} must be true or false, got ${JSON.stringify(value)}`);
}

/** The stopping rules `--until` names (only `decided` so far). */
const UNTIL_RULES = ['decided'] as const;

export function parseUntil(value: unknown, name: string): (typeof UNTIL_RULES)[number] {
  if (value === 'decided') return value;
  throw new ConfigError(
    `${name} must be ${UNTIL_RULES.join(' or ')}, got ${JSON.stringify(String(value).slice(0, 80))}`,
  );
}
