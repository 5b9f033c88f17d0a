/**
 * Plain statistics for reports: means with standard errors and 95% intervals, intervals of
 * proportions, percentiles, the unbiased pass@k estimator and a seeded paired bootstrap.
 * Everything here is a pure function over arrays of numbers; empty input gives `null`
 * fields, never NaN, so that JSON output stays valid.
 */
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';

/** A mean with its uncertainty. `null` where it is undefined (too few values). */
export interface Estimate {
  /** Number of values the mean is over. */
  n: number;
  mean: number | null;
  /** Standard error of the mean. */
  stderr: number | null;
  /** 95% interval [low, high]. */
  ci95: [number, number] | null;
  /** How the interval was made: Wilson score (0/1 data) or Student t (anything else). */
  method: 'wilson' | 't' | null;
}

/** Two-sided 97.5% quantiles of Student's t for 1..30 degrees of freedom (exact to 3 places). */
const T975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145,
  2.131, 2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048,
  2.045, 2.042,
];

/** z for a two-sided 95% interval. */
export const Z95 = 1.959963984540054;

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
 * Arithmetic mean, or null for no values. The sum is compensated (Neumaier), so a column of
 * 0.6s averages to 0.6 rather than 0.5999999999999999, and the result does not depend on
 * the order of the values beyond the last bit.
 */
export function mean(xs: ArrayLike<number>): number | null {
  if (xs.length === 0) return null;
  let s = 0;
  let c = 0;
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i]!;
    const t = s + x;
    c += Math.abs(s) >= Math.abs(x) ? s - t + x : x - t + s;
    s = t;
  }
  return (s + c) / xs.length;
}

/** Sample standard deviation (n - 1 in the denominator), or null below two values. */
export function sampleSd(xs: ArrayLike<number>): number | null {
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
export function isBinary(xs: ArrayLike<number>): boolean {
  for (let i = 0; i < xs.length; i++) if (xs[i] !== 0 && xs[i] !== 1) return false;
  return true;
}

/**
 * Mean, standard error and 95% interval of independent values. 0/1 data gets the Wilson
 * interval; anything else mean ± t(0.975, n-1)·se. `groups`, when given, names the task
 * each value belongs to: several rollouts of one task are not independent, so the standard
 * error is then the cluster-robust one over tasks (see `clusteredEstimate`).
 */
export function estimate(xs: ArrayLike<number>, groups?: ArrayLike<number>): Estimate {
  const n = xs.length;
  const m = mean(xs);
  if (m === null) return { n: 0, mean: null, stderr: null, ci95: null, method: null };
  if (groups && hasRepeats(groups)) return clusteredEstimate(xs, groups, m);
  const se = standardError(xs);
  if (isBinary(xs)) {
    return { n, mean: m, stderr: se, ci95: wilsonInterval(m * n, n), method: 'wilson' };
  }
  if (se === null) return { n, mean: m, stderr: null, ci95: null, method: null };
  const t = tQuantile975(n - 1);
  return { n, mean: m, stderr: se, ci95: [m - t * se, m + t * se], method: 't' };
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
 * var = G/(G-1) · Σ_g (Σ_{i∈g} (x_i − m))² / N², with a t interval on G − 1 degrees of
 * freedom. With one value per task it equals the ordinary sd/sqrt(n).
 */
function clusteredEstimate(xs: ArrayLike<number>, groups: ArrayLike<number>, m: number): Estimate {
  const n = xs.length;
  const resid = new Map<number, number>();
  for (let i = 0; i < n; i++) resid.set(groups[i]!, (resid.get(groups[i]!) ?? 0) + xs[i]! - m);
  const g = resid.size;
  if (g < 2) return { n, mean: m, stderr: null, ci95: null, method: null };
  let ss = 0;
  for (const r of resid.values()) ss += r * r;
  const se = Math.sqrt(((g / (g - 1)) * ss) / (n * n));
  if (isBinary(xs)) {
    // 0/1 data keeps the Wilson interval, on an effective sample size: n shrunk by the design
    // effect (clustered over independent variance), never below the number of tasks. When
    // every value is the same the design effect is undefined; the tasks count then stands.
    const iid = (m * (1 - m)) / n;
    const nEff = iid > 0 && se > 0 ? Math.min(n, Math.max(g, iid / (se * se) * n)) : g;
    return { n, mean: m, stderr: se, ci95: wilsonInterval(m * nEff, nEff), method: 'wilson' };
  }
  const t = tQuantile975(g - 1);
  return { n, mean: m, stderr: se, ci95: [m - t * se, m + t * se], method: 't' };
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
}

/**
 * Paired bootstrap of the mean difference: resample the task differences with replacement
 * `resamples` times from xoroshiro128+ seeded with `seed` (pure-rand), and take the
 * 2.5th and 97.5th percentiles of the resampled means. The same seed and data give the same
 * interval on every machine.
 */
export function pairedBootstrap(diffs: ArrayLike<number>, seed: number, resamples: number): PairedBootstrap {
  const n = diffs.length;
  const m = mean(diffs);
  if (m === null) return { n: 0, mean: null, ci95: null, seed, resamples };
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
  };
}
