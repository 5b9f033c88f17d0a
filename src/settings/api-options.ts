/**
 * The options of the public API's report calls (`compareRuns`, `leaderboard`): the flags of
 * the command they share code with, under the snake_case keys a TOML file would give them
 * (`--include-incomplete` is `include_incomplete`), checked by the same declaration, so the
 * ranges and messages are the flag's, naming the key and the call instead:
 * `"seed" in compareRuns() must be an integer from 0 to 4294967295, got -1`.
 */
import { ConfigError } from '../errors/index.js';
import type { FlagSet, FlagValues } from './flag.js';

/** `includeIncomplete` → `include_incomplete`. */
function snake(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/**
 * The flags `keys` of `set`, read from `given` by their snake_case keys (a list may be an
 * array), each checked by its flag's parser; a key not given takes the flag's default. A key
 * that is none of them, or a `given` that is not an object, is refused naming the call.
 */
export function readApiOptions<T extends FlagSet, K extends keyof T & string>(
  set: T,
  keys: readonly K[],
  given: unknown,
  call: string,
): Pick<FlagValues<T>, K> {
  if (given === undefined || given === null) given = {};
  if (typeof given !== 'object' || Array.isArray(given))
    throw new ConfigError(`the options of ${call} must be an object, got ${JSON.stringify(given)}`);
  const known = new Map(keys.map((k) => [snake(k), k] as const));
  const out: Record<string, unknown> = {};
  for (const k of keys) out[k] = set[k]!.default;
  for (const [name, raw] of Object.entries(given as Record<string, unknown>)) {
    const key = known.get(name);
    if (key === undefined)
      throw new ConfigError(`${call} has no option ${JSON.stringify(name)}; it takes ${[...known.keys()].join(', ')}`);
    if (raw === undefined) continue;
    if (Array.isArray(raw) && raw.some((v) => typeof v !== 'string' || v.includes(',')))
      throw new ConfigError(`"${name}" in ${call} must be a list of names, got ${JSON.stringify(raw).slice(0, 80)}`);
    const value = Array.isArray(raw) ? raw.join(',') : raw;
    out[key] = set[key]!.parse(value, `"${name}" in ${call}`);
  }
  return out as Pick<FlagValues<T>, K>;
}
