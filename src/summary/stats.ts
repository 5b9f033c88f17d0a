/**
 * Plain statistics for reports: means with standard errors and 95% intervals, intervals of
 * proportions, percentiles, the unbiased pass@k estimator and a seeded paired bootstrap.
 * Everything here is a pure function over arrays of numbers; empty input gives `null`
 * fields, never NaN, so that JSON output stays valid.
 */
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { CompensatedSum } from './compensated-sum.js';
import { bootstrapPercentiles } from './paired.js';

/**
 * What a column's values can be, which decides the interval: `unit` scores lie in [0, 1]
 * (rewards, accuracies, precision, recall), `count` values are whole numbers from 0 up
 * (claims flagged), `real` values are unbounded. See docs/statistics.md.
 */
export type Scale = 'unit' | 'count' | 'real';

/**
 * How an interval was made: `wilson` (0/1 values), `wilson-neff` (values in [0, 1], Wilson
 * on the effective sample size), `poisson-neff` (counts, the Poisson score interval on the
 * effective sample size) or `t` (Student t, unbounded values).
 */
type IntervalMethod = 'wilson' | 'wilson-neff' | 'poisson-neff' | 't';

/** A mean with its uncertainty. `null` where it is undefined (too few values). */
export interface Estimate {
  /** Number of values the mean is over. */
  n: number;
  mean: number | null;
  /** Standard error of the mean. */
  stderr: number | null;
  /** 95% interval [low, high]; inside the values' possible range for `unit` and `count`. */
  ci95: [number, number] | null;
  method: IntervalMethod | null;
}

/** Two-sided 97.5% quantiles of Student's t for 1..30 degrees of freedom (exact to 3 places). */
const T975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11,
  2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/** z for a two-sided 95% interval. */
const Z95 = 1.959963984540054;

/**
 * The 0.975 quantile of Student's t with `df` degrees of freedom: a table up to 30, then the
 * Cornish-Fisher expansion around the normal quantile (error below 1e-4 from df 30 on).
 */
export function tQuantile975(df: number): number {
  if (!(df >= 1)) return Number.NaN;
  if (df <= 30) return T975[Math.floor(df) - 1]!;
  const z = Z95;
  const z3 = z ** 3;
  const z5 = z ** 5;
  const z7 = z ** 7;
  return (
    z +
    (z3 + z) / (4 * df) +
    (5 * z5 + 16 * z3 + 3 * z) / (96 * df ** 2) +
    (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * df ** 3)
  );
}

/**
 * Arithmetic mean, or null for no values, over a compensated sum (compensated-sum.ts): a
 * column of 0.6s averages to 0.6, not 0.5999999999999999.
 */
export function mean(xs: ArrayLike<number>): number | null {
  if (xs.length === 0) return null;
  const sum = new CompensatedSum();
  for (let i = 0; i < xs.length; i++) sum.add(xs[i]!);
  return sum.value / xs.length;
}

/** Sample standard deviation (n - 1 in the denominator), or null below two values. */
function sampleSd(xs: ArrayLike<number>): number | null {
  const m = mean(xs);
  if (m === null || xs.length < 2) return null;
  let ss = 0;
  for (let i = 0; i < xs.length; i++) {
    const d = xs[i]! - m;
    ss += d * d;
  }
  return Math.sqrt(ss / (xs.length - 1));
}

/** Standard error of the mean, sd / sqrt(n); null below two values. */
export function standardError(xs: ArrayLike<number>): number | null {
  const sd = sampleSd(xs);
  return sd === null ? null : sd / Math.sqrt(xs.length);
}

/**
 * Wilson score interval for `successes` out of `n` at 95%. Chosen over the textbook
 * p ± 1.96·se because that one collapses to [p, p] at 0/n and n/n (common here: a model that
 * never gets the BAS right) and can leave [0, 1]; Wilson stays inside and keeps its width.
 */
export function wilsonInterval(successes: number, n: number, z = Z95): [number, number] | null {
  if (n <= 0) return null;
  const p = successes / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z / denom) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  // At 0/n and n/n the bound is exactly 0 or 1; pin it so rounding cannot leave 0.9999….
  return [successes <= 0 ? 0 : Math.max(0, centre - half), successes >= n ? 1 : Math.min(1, centre + half)];
}

/** True when every value is exactly 0 or 1. */
function isBinary(xs: ArrayLike<number>): boolean {
  for (let i = 0; i < xs.length; i++) if (xs[i] !== 0 && xs[i] !== 1) return false;
  return true;
}

/**
 * Mean, standard error and 95% interval. `scale` says what the values can be, and so which
 * interval respects it: 0/1 values get Wilson; other values in [0, 1] get Wilson on an
 * effective sample size; counts get the Poisson score interval on an effective sample size;
 * `real` values get mean ± t(0.975)·se. A `unit` or `count` column holding a value outside
 * its range (a hand-edited results file) falls back to the t interval rather than pretend.
 *
 * `groups`, when given, names the task each value belongs to: several rollouts of one task
 * are not independent, so the standard error is then the cluster-robust one over tasks.
 */
export function estimate(xs: ArrayLike<number>, groups?: ArrayLike<number>, scale: Scale = 'real'): Estimate {
  const n = xs.length;
  const m = mean(xs);
  if (m === null) return { n: 0, mean: null, stderr: null, ci95: null, method: null };
  const clustered = groups !== undefined && hasRepeats(groups);
  const { se, units } = clustered ? clusteredError(xs, groups!, m) : { se: standardError(xs), units: n };
  const fits = scale === 'unit' ? within(xs, 0, 1) : scale === 'count' ? within(xs, 0, Infinity) : false;
  return interval({ n, mean: m, se, units, clustered, fits, binary: scale === 'unit' && isBinary(xs) }, scale);
}

/** What an interval is made from: the column's mean and error, and what its values look like. */
export interface ColumnShape {
  n: number;
  mean: number;
  se: number | null;
  /** Independent units: the values, or the tasks when the error is clustered. */
  units: number;
  clustered: boolean;
  /** Every value lies in the scale's range. */
  fits: boolean;
  /** Every value is exactly 0 or 1. */
  binary: boolean;
}

/**
 * The estimate of a column described by `c`: the one place that picks the interval, whether
 * the values were kept (`estimate`) or only their running sums (`Moments` in moments.ts).
 */
export function interval(c: ColumnShape, scale: Scale): Estimate {
  const { n, mean: m, se, units, clustered } = c;
  if (!c.fits) {
    if (se === null || units < 2) return { n, mean: m, stderr: se, ci95: null, method: null };
    const t = tQuantile975(units - 1);
    return { n, mean: m, stderr: se, ci95: [m - t * se, m + t * se], method: 't' };
  }
  if (scale === 'unit' && c.binary) {
    if (!clustered) return { n, mean: m, stderr: se, ci95: wilsonInterval(m * n, n), method: 'wilson' };
    // Rollouts of a task that agree carry less than their number: the effective size lies
    // between the number of tasks and the number of values.
    const v = m * (1 - m);
    const nEff = v > 0 && se !== null && se > 0 ? Math.min(n, Math.max(units, v / (se * se))) : units;
    return { n, mean: m, stderr: se, ci95: wilsonInterval(m * nEff, nEff), method: 'wilson' };
  }
  // The variance a 0/1 (or Poisson) column with this mean would have, over the variance of
  // the mean we measured, is the sample size at which the textbook interval would be as wide.
  const v = scale === 'unit' ? m * (1 - m) : m;
  const nEff = effectiveSize(v, se, n, units);
  if (scale === 'unit') return { n, mean: m, stderr: se, ci95: wilsonInterval(m * nEff, nEff), method: 'wilson-neff' };
  return { n, mean: m, stderr: se, ci95: poissonScoreInterval(m, nEff), method: 'poisson-neff' };
}

/**
 * The effective sample size for a mean whose worst-case (0/1 or Poisson) variance per value
 * is `v` and whose measured standard error is `se`: v / se², kept between 1 and n². Where it
 * cannot be measured (one value, or every value at a bound so `v` is 0) it is the plain count
 * of independent units; the n² cap stops a few equal values from claiming certainty.
 */
function effectiveSize(v: number, se: number | null, n: number, units: number): number {
  if (v <= 0 || se === null) return Math.max(1, units);
  if (se === 0) return n * n;
  return Math.min(n * n, Math.max(1, v / (se * se)));
}

/**
 * The score interval of a Poisson mean `m` over `k` units: the λ with (m − λ)² ≤ z²λ/k. Its
 * lower end is never below 0 (and is 0 exactly when m is), unlike m ± z·√(m/k).
 */
export function poissonScoreInterval(m: number, k: number, z = Z95): [number, number] {
  const z2 = z * z;
  const centre = m + z2 / (2 * k);
  const half = z * Math.sqrt(m / k + z2 / (4 * k * k));
  return [m <= 0 ? 0 : Math.max(0, centre - half), centre + half];
}

function within(xs: ArrayLike<number>, lo: number, hi: number): boolean {
  for (let i = 0; i < xs.length; i++) if (!(xs[i]! >= lo && xs[i]! <= hi)) return false;
  return true;
}

function hasRepeats(groups: ArrayLike<number>): boolean {
  const seen = new Set<number>();
  for (let i = 0; i < groups.length; i++) {
    if (seen.has(groups[i]!)) return true;
    seen.add(groups[i]!);
  }
  return false;
}

/**
 * Cluster-robust (CR1) standard error of the overall mean, tasks as clusters:
 * var = G/(G-1) · Σ_g (Σ_{i∈g} (x_i − m))² / N², with G (the number of tasks) as the count
 * of independent units. With one value per task it equals the ordinary sd/sqrt(n).
 */
function clusteredError(
  xs: ArrayLike<number>,
  groups: ArrayLike<number>,
  m: number,
): { se: number | null; units: number } {
  const n = xs.length;
  const resid = new Map<number, number>();
  for (let i = 0; i < n; i++) resid.set(groups[i]!, (resid.get(groups[i]!) ?? 0) + xs[i]! - m);
  const g = resid.size;
  if (g < 2) return { se: null, units: g };
  let ss = 0;
  for (const r of resid.values()) ss += r * r;
  return { se: Math.sqrt(((g / (g - 1)) * ss) / (n * n)), units: g };
}

/**
 * The q-th quantile (0..1) by linear interpolation between order statistics (the "type 7"
 * rule of R and numpy's default). Sorts a copy; null for no values.
 */
export function percentile(xs: ArrayLike<number>, q: number): number | null {
  if (xs.length === 0) return null;
  const sorted = Float64Array.from(xs as ArrayLike<number>).sort();
  return percentileSorted(sorted, q);
}

/** Like `percentile` on values already sorted ascending. */
export function percentileSorted(sorted: ArrayLike<number>, q: number): number | null {
  const n = sorted.length;
  if (n === 0) return null;
  const h = (n - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(n - 1, lo + 1);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

/**
 * Unbiased pass@k for one task (Chen et al. 2021): with n samples of which c succeeded,
 * 1 − C(n−c, k)/C(n, k), computed as a product to avoid huge binomials. Null when n < k.
 */
export function passAtK(n: number, c: number, k: number): number | null {
  if (k < 1 || n < k) return null;
  if (n - c < k) return 1;
  let prodFail = 1;
  for (let i = n - c + 1; i <= n; i++) prodFail *= 1 - k / i;
  return 1 - prodFail;
}

/** The k values reported for a run with up to `maxRollouts` per task: 1, 2, 4, … and the maximum. */
export function passKs(maxRollouts: number): number[] {
  const ks: number[] = [];
  for (let k = 1; k <= maxRollouts; k *= 2) ks.push(k);
  if (maxRollouts >= 1 && ks[ks.length - 1] !== maxRollouts) ks.push(maxRollouts);
  return ks;
}

/** Result of a paired bootstrap over per-task differences. */
export interface PairedBootstrap {
  /** Tasks paired. */
  n: number;
  /** Mean of the differences (A − B). */
  mean: number | null;
  /** Percentile 95% interval of the resampled means. */
  ci95: [number, number] | null;
  seed: number;
  resamples: number;
  /**
   * `drawn`: the resamples were drawn; `expansion`: the sample was too large to draw them in
   * reasonable time, and the percentiles come from the bootstrap distribution's cumulants.
   */
  method: 'drawn' | 'expansion';
}

/**
 * Draws past this many (tasks × resamples) are not drawn: 10,000 resamples of 100,000 tasks
 * would take a minute, and at such sizes the expansion is closer to the bootstrap
 * distribution than 10,000 draws are.
 */
const DRAW_LIMIT = 2 ** 24;

/**
 * Paired bootstrap of the mean difference: resample the task differences with replacement
 * `resamples` times from xoroshiro128+ seeded with `seed` (pure-rand), and take the
 * 2.5th and 97.5th percentiles of the resampled means. The same seed and data give the same
 * interval on every machine. Above DRAW_LIMIT draws, the same percentiles are read off the
 * bootstrap distribution itself (`bootstrapPercentiles`, paired.ts).
 */
export function pairedBootstrap(diffs: ArrayLike<number>, seed: number, resamples: number): PairedBootstrap {
  const n = diffs.length;
  const m = mean(diffs);
  if (m === null) return { n: 0, mean: null, ci95: null, seed, resamples, method: 'drawn' };
  if (n * resamples > DRAW_LIMIT)
    return { n, mean: m, ci95: bootstrapPercentiles(diffs), seed, resamples, method: 'expansion' };
  const rng = xoroshiro128plus(seed);
  const means = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += diffs[uniformInt(rng, 0, n - 1)]!;
    means[b] = s / n;
  }
  means.sort();
  return {
    n,
    mean: m,
    ci95: [percentileSorted(means, 0.025)!, percentileSorted(means, 0.975)!],
    seed,
    resamples,
    method: 'drawn',
  };
}
