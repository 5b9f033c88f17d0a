/**
 * Australian Business Numbers. An ABN is 11 digits; take 1 from the first digit, weight the
 * digits 10, 1, 3, 5, ..., 19, and the sum must divide by 89 (the ATO's published check).
 */
import { wholeDigits } from './money.js';
import type { Rng } from './random.js';

const WEIGHTS = [10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19] as const;

/** Whether `abn` (digits only, spaces allowed) passes the ATO's check. */
export function isValidAbn(abn: string): boolean {
  const digits = abn.replace(/ /g, '');
  if (!/^\d{11}$/.test(digits) || digits[0] === '0') return false;
  let sum = 0;
  for (let i = 0; i < 11; i++) {
    const d = Number(digits[i]) - (i === 0 ? 1 : 0);
    sum += d * WEIGHTS[i]!;
  }
  return sum % 89 === 0;
}

/**
 * A random valid ABN. The last nine digits are drawn; the first two are then the only pair
 * that makes the weighted sum divisible by 89 (10·(d1−1) + d2 covers 0..89, so one always fits).
 */
export function randomAbn(rng: Rng): string {
  // The nine drawn digits as one number, so the ABN is written as a string once (eleven
  // digits stay far below 2^53): one is drawn for every supplier of every generated ledger.
  let rest = 0;
  let sum = 0;
  for (let i = 2; i < 11; i++) {
    const d = rng.int(0, 9);
    rest = rest * 10 + d;
    sum += d * WEIGHTS[i]!;
  }
  const need = (89 - (sum % 89)) % 89;
  const first = Math.floor(need / 10) + 1;
  const second = need % 10;
  return wholeDigits(first * 1e10 + second * 1e9 + rest);
}
