/**
 * The betting mixture behind the confidence sequences (confidence-sequence.ts) and the fixed
 * mean test (fixed-mean-test.ts): the grid of bets, their caps, and the log wealth of the
 * mixture against a candidate mean m, with its slope in m.
 *
 * Method (docs/statistics.md, "Anytime-valid intervals"): betting. For a candidate mean m,
 * a bettor with fraction b stakes on each score x and its wealth is the product of
 * (1 + b(x - m)); when m is the true mean this is a nonnegative martingale (Waudby-Smith
 * and Ramdas, "Estimating means of bounded random variables by betting", JRSS-B 2024), so
 * by Ville's inequality it ever reaches 2/alpha with chance at most alpha/2. One bettor
 * alone is tuned to one n, so the wealth here is the average over a fixed geometric grid
 * of 30 bets from 1.5 down to 0.02, each capped at 0.8/m (the product stays positive): an
 * average of martingales is a martingale, and the grid keeps the width near 1.65 times the
 * fixed-n CLT width at every n from about 50 to 30,000.
 *
 * Because the bets are fixed (not chosen from the data), the wealth at n depends only on
 * which scores were seen, not their order.
 */

/** Number of bets in the mixture. */
export const GRID = 30;
/** The largest and smallest bet of the grid (geometric in between). */
export const BET_MAX = 1.5;
const BET_MIN = 0.02;
/** A bet against mean m is at most TRUNCATE / m, so that 1 + b(x - m) >= 1 - TRUNCATE > 0. */
const TRUNCATE = 0.8;

/** The grid of bets, largest first. */
export const BETS = Float64Array.from({ length: GRID }, (_, k) => BET_MAX * (BET_MIN / BET_MAX) ** (k / (GRID - 1)));
const LOG_WEIGHT = -Math.log(GRID);

/** The default error rate: 95% sequences. */
export const DEFAULT_ALPHA = 0.05;

export interface SequenceOptions {
  /** The chance of ever excluding the true mean; 0.05 for 95% sequences. */
  alpha?: number;
}

export function checkAlpha(alpha: number): number {
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must be in (0, 1), got ${alpha}`);
  return alpha;
}

export function checkUnit(x: number): number {
  if (!(x >= 0 && x <= 1)) throw new RangeError(`a score must be in [0, 1], got ${x}`);
  return x;
}

/** The cap on the bets against m on one side: 0.8/m for "mean above m", 0.8/(1-m) below. */
export function capFor(m: number, side: 1 | -1): number {
  return TRUNCATE / (side === 1 ? m : 1 - m);
}

const scratch = new Float64Array(GRID);

/** log of the mixture's average over per-bet log wealths in `logs` (length GRID). */
export function logMixture(logs: Float64Array): number {
  let max = -Infinity;
  for (let k = 0; k < GRID; k++) if (logs[k]! > max) max = logs[k]!;
  let sum = 0;
  for (let k = 0; k < GRID; k++) sum += Math.exp(logs[k]! - max);
  return LOG_WEIGHT + max + Math.log(sum);
}

/**
 * log of the mixture wealth against mean m after the scores `values[j]` seen `counts[j]`
 * times (j < d). side 1 bets that the mean is above m, side -1 that it is below.
 */
export function logWealth(values: Float64Array, counts: Float64Array, d: number, m: number, side: 1 | -1): number {
  const cap = capFor(m, side);
  for (let k = 0; k < GRID; k++) {
    const b = Math.min(BETS[k]!, cap) * side;
    let s = 0;
    for (let j = 0; j < d; j++) s += counts[j]! * Math.log1p(b * (values[j]! - m));
    scratch[k] = s;
  }
  return logMixture(scratch);
}

const slopes = new Float64Array(GRID);

/**
 * The same log wealth with its derivative in m (stored in `slope[0]`): d/dm of each bet's
 * Σ c log(1 + u), u = b·side·(x - m), is Σ c u'/(1 + u), with u' = -side·b for a bet under
 * the cap and the derivative of the capped bet's u otherwise; the mixture's derivative is
 * the wealth-weighted average of the bets'.
 */
export function logWealthSlope(
  values: Float64Array,
  counts: Float64Array,
  d: number,
  m: number,
  side: 1 | -1,
  slope: Float64Array,
): number {
  const cap = capFor(m, side);
  for (let k = 0; k < GRID; k++) {
    const capped = BETS[k]! >= cap;
    const b = capped ? cap : BETS[k]!;
    let s = 0;
    let ds = 0;
    for (let j = 0; j < d; j++) {
      const v = values[j]!;
      const u = b * side * (v - m);
      let du: number;
      if (!capped) du = -side * b;
      else if (side === 1) du = (-TRUNCATE * v) / (m * m);
      else du = (TRUNCATE * (1 - v)) / ((1 - m) * (1 - m));
      s += counts[j]! * Math.log1p(u);
      ds += (counts[j]! * du) / (1 + u);
    }
    scratch[k] = s;
    slopes[k] = ds;
  }
  let max = -Infinity;
  for (let k = 0; k < GRID; k++) if (scratch[k]! > max) max = scratch[k]!;
  let sum = 0;
  let weighted = 0;
  for (let k = 0; k < GRID; k++) {
    const w = Math.exp(scratch[k]! - max);
    sum += w;
    weighted += w * slopes[k]!;
  }
  slope[0] = weighted / sum;
  return LOG_WEIGHT + max + Math.log(sum);
}

/** The last index of the grid whose bet is at least `cap` (so all bets up to it are capped to the same value). */
export function lastCapped(cap: number): number {
  let k = 0;
  while (k + 1 < GRID && BETS[k + 1]! >= cap) k++;
  return k;
}
