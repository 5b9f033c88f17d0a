/**
 * The one parser per kind of number, for every flag, every config key and every saved
 * setting. A flag's text is read strictly: an integer is plain digits (`12`, not `12.0`,
 * `1e3`, ` 5` or `0x10`); a number is decimal text with an optional exponent (`0.5`, `5e-1`),
 * never hex, `Infinity` or blank. Spaces are not trimmed: a shell hands them over only when
 * the user quoted them, and then the value is not the number they meant. A value that is
 * already a number (TOML, JSON) must be of the kind: an integer key refuses `3.0` (TOML
 * floats are refused by the config reader before they get here, see config.ts).
 */
import { ConfigError } from '../errors.js';

const INTEGER_TEXT = /^[-+]?\d{1,20}$/;
const NUMBER_TEXT = /^[-+]?(\d{1,400}(\.\d{0,400})?|\.\d{1,400})([eE][-+]?\d{1,4})?$/;

function show(value: unknown): string {
  return typeof value === 'string'
    ? JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value)
    : String(value);
}

/** An integer in [min, max], from a flag's text or a config value; the error names `name` and the range. */
export function parseInteger(value: unknown, name: string, min: number, max: number): number {
  const n =
    typeof value === 'number' ? value : typeof value === 'string' && INTEGER_TEXT.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got ${show(value)}`);
  return n;
}

/** A finite number in [min, max], from a flag's text or a config value. */
export function parseNumber(value: unknown, name: string, min: number, max: number): number {
  const n =
    typeof value === 'number' ? value : typeof value === 'string' && NUMBER_TEXT.test(value) ? Number(value) : NaN;
  if (!Number.isFinite(n) || n < min || n > max)
    throw new ConfigError(`${name} must be a number from ${min} to ${max}, got ${show(value)}`);
  return n;
}

/** The parser of an integer setting in [min, max]. */
export const integer =
  (min: number, max: number) =>
  (v: unknown, name: string): number =>
    parseInteger(v, name, min, max);

/** The parser of a number setting in [min, max]. */
export const number =
  (min: number, max: number) =>
  (v: unknown, name: string): number =>
    parseNumber(v, name, min, max);
