/**
 * Money as integer cents. Every amount in the program is a whole number of cents made by
 * `cents()`, which refuses anything else; a two-decimal string exists only at the edges.
 * decimal.js is used solely where text (a model's figure) becomes a number, in `answer.ts`.
 */
import type { Cents } from './types.js';

/** Makes a `Cents` value, refusing non-integers and values past exact float range. */
export function cents(value: number): Cents {
  if (!Number.isSafeInteger(value)) throw new RangeError(`not a whole number of cents: ${value}`);
  return value;
}

/**
 * `numerator / divisor` rounded to the nearest cent, ties away from zero for positives
 * (half up). Works on integers only, so no float error creeps in.
 */
export function divideRoundHalfUp(numerator: Cents, divisor: number): Cents {
  const sign = numerator < 0 ? -1 : 1;
  const n = Math.abs(numerator);
  const q = Math.floor(n / divisor);
  const r = n - q * divisor;
  // r * 2 >= divisor means the remainder is at least half: round up (away from zero).
  return sign * (r * 2 >= divisor ? q + 1 : q);
}

/** GST contained in a GST-inclusive price: one eleventh, to the cent, half up (GST Act s 9-70, s 9-90). */
export function gstInclusiveShare(amount: Cents): Cents {
  return divideRoundHalfUp(amount, 11);
}

/** The classic bookkeeping slip: 10% of the GST-inclusive price instead of 1/11 of it. */
export function tenPercentOf(amount: Cents): Cents {
  return divideRoundHalfUp(amount, 10);
}

/**
 * The decimal digits of a whole number from 0 to 1e21, as `String(n)` writes them, but
 * without V8's number-to-string cache: that cache lives in the old generation, so every
 * string it holds survives the young collections and is promoted, and the ledgers' random
 * amounts and invoice numbers would otherwise leave a few hundred bytes per task there for
 * the next full collection (docs/performance.md).
 */
export function wholeDigits(n: number): string {
  return n.toFixed(0);
}

/** Writes cents as a plain two-decimal string: 123450 -> "1234.50", -1230 -> "-12.30". */
export function formatCents(value: Cents): string {
  const sign = value < 0 ? '-' : '';
  const abs = Math.abs(value);
  const whole = Math.floor(abs / 100);
  const frac = abs - whole * 100;
  return `${sign}${wholeDigits(whole)}.${frac < 10 ? '0' : ''}${frac}`;
}

const PLAIN_DECIMAL = /^-?\d+(\.\d{1,2})?$/;

/**
 * Reads a two-decimal money string written by this program (task files), e.g. "1234.50".
 * Returns null for anything else; the caller names the field in its error.
 */
export function parseMoneyString(text: string): Cents | null {
  if (!PLAIN_DECIMAL.test(text)) return null;
  const negative = text.startsWith('-');
  const [whole, frac = ''] = (negative ? text.slice(1) : text).split('.');
  const value = Number(whole) * 100 + Number(frac.padEnd(2, '0'));
  if (!Number.isSafeInteger(value)) return null;
  return cents(negative ? -value : value);
}
