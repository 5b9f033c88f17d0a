/**
 * The kinds of flag the commands' declarations are made of, each a function that makes one:
 * a text value, `--json`, one of a closed list of words, a comma-separated list of values,
 * and a flag taken away (refused, naming what replaced it).
 */
import type { Flag } from './flag.js';
import { parseSwitch, parseText } from './setting-parse.js';
import { ConfigError } from '../errors/index.js';

/** A flag taken away: refused, whatever its value, with `why` (what replaced it); left out of --help and the docs. */
export function removedFlag(flags: string, why: string): Flag<null> {
  return {
    flags,
    help: why,
    defaultText: null,
    default: null,
    hidden: true,
    parse: (_value, name) => {
      throw new ConfigError(`${name} is no longer taken: ${why}`);
    },
  };
}

/** One of a closed list of words. */
export function oneOf<T extends string>(choices: readonly T[]): (value: unknown, name: string) => T {
  return (value, name) => {
    if (typeof value === 'string' && (choices as readonly string[]).includes(value)) return value as T;
    throw new ConfigError(
      `${name} must be one of ${choices.join(', ')}, got ${JSON.stringify(String(value).slice(0, 80))}`,
    );
  };
}

/** Most points of a sweep, and so the longest list a sweep flag takes. */
const MAX_LIST = 100;

/**
 * A comma-separated list of values, each read by `item` (the flag's own single-value parser,
 * so `12.0` is refused in a list as it is alone); no value twice.
 */
export function listOf<V>(item: (value: unknown, name: string) => V): (value: unknown, name: string) => V[] {
  return (value, name) => {
    const text = String(value);
    const items = text.split(',').map((s) => s.trim());
    if (items.length > MAX_LIST || items.some((s) => s === ''))
      throw new ConfigError(
        `${name} takes a comma-separated list of up to ${MAX_LIST} values, e.g. 12,24,60, got ${JSON.stringify(text.slice(0, 80))}`,
      );
    const values = items.map((s) => item(s, name));
    if (new Set(values).size !== values.length)
      throw new ConfigError(`${name} lists a value twice: ${JSON.stringify(text.slice(0, 80))}`);
    return values;
  };
}

export const text = (flags: string, help: string, extra: Partial<Flag<string | null>> = {}): Flag<string | null> => ({
  flags,
  help,
  defaultText: null,
  default: null,
  parse: parseText,
  ...extra,
});

export const json = (help: string): Flag<boolean> => ({
  flags: '--json',
  help,
  defaultText: null,
  default: false,
  parse: parseSwitch,
});
