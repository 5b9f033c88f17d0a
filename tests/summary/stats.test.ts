import { describe, expect, it } from 'vitest';
import {
  estimate,
  mean,
  pairedBootstrap,
  passAtK,
  passKs,
  percentile,
  poissonScoreInterval,
  standardError,
  tQuantile975,
  wilsonInterval,
} from '../../src/summary/stats.js';

describe('means and standard errors', () => {
  it('standard error of a mean: sd/sqrt(n) with n-1 in the variance', () => {
    // 2,4,4,4,5,5,7,9: mean 5, sample variance 32/7.
    const xs = [2, 4, 4, 4, 5, 5, 7, 9];
    expect(mean(xs)).toBe(5);
    expect(standardError(xs)).toBeCloseTo(Math.sqrt(32 / 7) / Math.sqrt(8), 12);
  });

  it('a column of equal values averages to that value exactly (compensated sum)', () => {
    expect(mean(Array(50).fill(0.6))).toBe(0.6);
    expect(mean(Array(1000).fill(0.1))).toBe(0.1);
    expect(mean([1e16, 1, -1e16])).toBe(1 / 3);
  });

  it('empty and single inputs give nulls, not NaN', () => {
    expect(estimate([])).toEqual({ n: 0, mean: null, stderr: null, ci95: null, method: null });
    const one = estimate([0.5]);
    expect(one.mean).toBe(0.5);
    expect(one.stderr).toBeNull();
    expect(one.ci95).toBeNull();
  });

  it('a t interval for non-binary data: mean ± t(0.975, n-1)·se', () => {
    const xs = [0.2, 0.4, 0.6, 0.8, 1.0]; // mean 0.6, sd sqrt(0.1)
    const e = estimate(xs, undefined, 'real');
    const se = Math.sqrt(0.1) / Math.sqrt(5);
    expect(e.method).toBe('t');
    expect(e.stderr).toBeCloseTo(se, 12);
    expect(e.ci95![0]).toBeCloseTo(0.6 - 2.776 * se, 9);
    expect(e.ci95![1]).toBeCloseTo(0.6 + 2.776 * se, 9);
  });

  it('t quantiles: table values and the large-df expansion', () => {
    expect(tQuantile975(1)).toBe(12.706);
    expect(tQuantile975(10)).toBe(2.228);
    expect(tQuantile975(40)).toBeCloseTo(2.0211, 3);
    expect(tQuantile975(120)).toBeCloseTo(1.9799, 3);
    expect(tQuantile975(1e9)).toBeCloseTo(1.95996, 4);
  });

  it('clusters rollouts of one task: the standard error is taken over tasks', () => {
    // Two tasks, each answered identically twice: effectively two independent values.
    const e = estimate([0.2, 0.2, 0.8, 0.8], [0, 0, 1, 1]);
    // CR1: G/(G-1) * Σ_g (Σ resid)^2 / N^2 = 2 * (0.6^2 + 0.6^2) / 16 = 0.09, se 0.3
    expect(e.stderr).toBeCloseTo(0.3, 12);
    expect(e.ci95![1]).toBeCloseTo(0.5 + 12.706 * 0.3, 9);
  });
});

describe('the interval of a proportion (Wilson)', () => {
  it('matches published values', () => {
    // 8 successes in 10: Wilson 95% interval (0.4902, 0.9433).
    const [lo, hi] = wilsonInterval(8, 10)!;
    expect(lo).toBeCloseTo(0.4902, 4);
    expect(hi).toBeCloseTo(0.9433, 4);
  });

  it('stays informative at 0/n and n/n', () => {
    const [lo, hi] = wilsonInterval(0, 30)!;
    expect(lo).toBe(0);
    expect(hi).toBeCloseTo(0.1135, 4);
    const [lo2, hi2] = wilsonInterval(30, 30)!;
    expect(lo2).toBeCloseTo(0.8865, 4);
    expect(hi2).toBe(1);
  });

  it('is what estimate() uses for 0/1 data', () => {
    const e = estimate([1, 1, 1, 1, 1, 1, 1, 1, 0, 0], undefined, 'unit');
    expect(e.method).toBe('wilson');
    expect(e.mean).toBe(0.8);
    expect(e.ci95![0]).toBeCloseTo(0.4902, 4);
  });
});

describe('percentiles (linear interpolation, type 7)', () => {
  it.each([
    [[1, 2, 3, 4], 0.5, 2.5],
    [[1, 2, 3, 4, 5], 0.5, 3],
    [[10, 20, 30, 40, 50, 60, 70, 80, 90, 100], 0.95, 95.5],
    [[5], 0.95, 5],
    [[3, 1, 2], 0, 1],
    [[3, 1, 2], 1, 3],
  ])('%j at %d is %d', (xs, q, want) => {
    expect(percentile(xs, q)).toBeCloseTo(want, 12);
  });
  it('no values: null', () => expect(percentile([], 0.5)).toBeNull());
});

describe('pass@k, the unbiased estimator', () => {
  it.each([
    // n, c, k, 1 - C(n-c,k)/C(n,k)
    [10, 0, 1, 0],
    [10, 3, 1, 0.3],
    [10, 3, 2, 1 - 21 / 45],
    [4, 1, 2, 0.5],
    [4, 2, 4, 1],
    [5, 2, 3, 1 - 1 / 10],
    [8, 8, 8, 1],
  ])('n=%d c=%d k=%d', (n, c, k, want) => {
    expect(passAtK(n, c, k)).toBeCloseTo(want, 12);
  });
  it('undefined when there are fewer samples than k', () => expect(passAtK(3, 1, 4)).toBeNull());
  it('reports k = 1, 2, 4 … and the maximum', () => {
    expect(passKs(1)).toEqual([1]);
    expect(passKs(4)).toEqual([1, 2, 4]);
    expect(passKs(10)).toEqual([1, 2, 4, 8, 10]);
  });
});

describe('paired bootstrap', () => {
  const diffs = [0.1, -0.2, 0.3, 0.05, 0, 0.4, -0.1, 0.2, 0.15, 0.25];
  it('is reproducible for a seed', () => {
    const a = pairedBootstrap(diffs, 7, 2000);
    const b = pairedBootstrap(diffs, 7, 2000);
    expect(a).toEqual(b);
    const c = pairedBootstrap(diffs, 8, 2000);
    expect(c.ci95).not.toEqual(a.ci95);
  });
  it('brackets the mean and is close to the normal-theory interval', () => {
    const r = pairedBootstrap(diffs, 1, 10000);
    const m = mean(diffs)!;
    expect(r.mean).toBeCloseTo(m, 12);
    expect(r.ci95![0]).toBeLessThan(m);
    expect(r.ci95![1]).toBeGreaterThan(m);
    const se = standardError(diffs)!;
    // The bootstrap uses the plug-in (n) variance: width ≈ 2·1.96·se·sqrt((n-1)/n).
    const width = r.ci95![1] - r.ci95![0];
    expect(width).toBeGreaterThan(2 * 1.96 * se * 0.8);
    expect(width).toBeLessThan(2 * 1.96 * se * 1.1);
  });
  it('constant differences give a zero-width interval; none give nulls', () => {
    expect(pairedBootstrap([0.5, 0.5, 0.5], 3, 100).ci95).toEqual([0.5, 0.5]);
    expect(pairedBootstrap([], 3, 100).mean).toBeNull();
  });
});

describe('0/1 scores with several rollouts per task', () => {
  it('keep a Wilson interval inside [0, 1] with width, on the number of tasks when all agree', () => {
    const ones = estimate([1, 1, 1, 1, 1, 1, 1, 1, 1], [0, 0, 0, 1, 1, 1, 2, 2, 2], 'unit');
    expect(ones.method).toBe('wilson');
    expect(ones.ci95).toEqual(wilsonInterval(3, 3));
    expect(ones.ci95![0]).toBeLessThan(1);
  });

  it('shrink the sample to its effective size when rollouts of a task agree', () => {
    // Rollouts agree within each task: the information is that of 4 tasks, not 12 values.
    const xs = [1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0];
    const gs = [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3];
    const clustered = estimate(xs, gs, 'unit');
    const naive = estimate(xs, undefined, 'unit');
    expect(clustered.method).toBe('wilson');
    expect(clustered.ci95![1] - clustered.ci95![0]).toBeGreaterThan(naive.ci95![1] - naive.ci95![0]);
    expect(clustered.ci95![0]).toBeGreaterThanOrEqual(0);
    expect(clustered.ci95![1]).toBeLessThanOrEqual(1);
  });
});

describe('intervals stay inside what is possible', () => {
  const inside = (ci: [number, number] | null, lo: number, hi: number) => {
    expect(ci).not.toBeNull();
    expect(ci![0]).toBeGreaterThanOrEqual(lo);
    expect(ci![1]).toBeLessThanOrEqual(hi);
    expect(ci![0]).toBeLessThanOrEqual(ci![1]);
  };

  it.each([
    ['one reply', [0.6]],
    ['two replies', [0.6, 0.1]],
    ['four replies', [1, 1, 0.1, 0.1]],
    ['four near the top', [1, 1, 1, 0.6]],
    ['all zeros', [0, 0, 0, 0]],
    ['all ones', [1, 1]],
    ['equal values off the bounds', [0.5, 0.5]],
    ['200 mostly zero (raw-sums)', [...Array(198).fill(0), 0.6, 0.6]],
  ])('a score in [0, 1], %s: an interval inside [0, 1] that holds the mean', (_name, xs) => {
    const e = estimate(xs, undefined, 'unit');
    inside(e.ci95, 0, 1);
    expect(e.ci95![0]).toBeLessThanOrEqual(e.mean!);
    expect(e.ci95![1]).toBeGreaterThanOrEqual(e.mean!);
    expect(['wilson', 'wilson-neff']).toContain(e.method);
  });

  it("the issue's four replies: no longer [0.039, 1.261] but inside [0, 1] with width", () => {
    const e = estimate([1, 1, 0.1, 0.1], undefined, 'unit');
    expect(e.method).toBe('wilson-neff');
    inside(e.ci95, 0, 1);
    expect(e.ci95![1]).toBeLessThan(1);
    expect(e.ci95![1] - e.ci95![0]).toBeGreaterThan(0.4);
  });

  it('one value gets the widest interval of its kind: Wilson on a sample of one', () => {
    expect(estimate([0.6], undefined, 'unit').ci95).toEqual(wilsonInterval(0.6, 1));
    expect(estimate([0], undefined, 'unit').ci95).toEqual(wilsonInterval(0, 1));
  });

  it('a few equal values do not claim certainty: at most n² in effective size', () => {
    const e = estimate([0.5, 0.5], undefined, 'unit');
    expect(e.ci95).toEqual(wilsonInterval(2, 4));
  });

  it('all-zero and all-one scores get the Wilson interval of 0/n and n/n', () => {
    expect(estimate([0, 0, 0, 0], undefined, 'unit').ci95).toEqual(wilsonInterval(0, 4));
    expect(estimate([1, 1, 1, 1], undefined, 'unit').ci95).toEqual(wilsonInterval(4, 4));
  });

  it('agrees with Wilson when the values are 0/1 in all but name (large n)', () => {
    // 0.999/0.001 behave like 1/0: the effective size is close to n.
    const xs = [...Array(60).fill(0.999), ...Array(40).fill(0.001)];
    const e = estimate(xs, undefined, 'unit');
    const w = wilsonInterval(60, 100)!;
    expect(e.ci95![0]).toBeCloseTo(w[0], 2);
    expect(e.ci95![1]).toBeCloseTo(w[1], 2);
  });

  it.each([
    ['one reply', [3]],
    ['two replies', [0, 7]],
    ['four replies (the issue: was [-3.67, 13.17])', [0, 0, 1, 16]],
    ['all zeros', [0, 0, 0, 0]],
    ['one zero', [0]],
    ['all ones', [1, 1, 1, 1]],
  ])('a count, %s: never negative, holds the mean, named poisson*', (_name, xs) => {
    const e = estimate(xs, undefined, 'count');
    expect(e.method).toBe('poisson-neff');
    inside(e.ci95, 0, Infinity);
    expect(e.ci95![0]).toBeLessThanOrEqual(e.mean!);
    expect(e.ci95![1]).toBeGreaterThan(e.mean!);
  });

  it('a count of all zeros is not given a Wilson interval (no upper bound of 1)', () => {
    const e = estimate([0, 0], undefined, 'count');
    expect(e.method).toBe('poisson-neff');
    expect(e.ci95![0]).toBe(0);
    expect(e.ci95![1]).toBeCloseTo(poissonScoreInterval(0, 2)[1], 12);
  });

  it('the Poisson score interval matches its closed form', () => {
    // m = 2 over k = 10: 2 + z²/20 ± z·sqrt(0.2 + z²/400).
    const z = 1.959963984540054;
    const [lo, hi] = poissonScoreInterval(2, 10);
    expect(lo).toBeCloseTo(2 + (z * z) / 20 - z * Math.sqrt(0.2 + (z * z) / 400), 12);
    expect(hi).toBeCloseTo(2 + (z * z) / 20 + z * Math.sqrt(0.2 + (z * z) / 400), 12);
  });

  it('clustered bounded scores stay inside [0, 1] too', () => {
    const e = estimate([0.1, 0.1, 0.9, 1], [0, 0, 1, 1], 'unit');
    expect(e.method).toBe('wilson-neff');
    inside(e.ci95, 0, 1);
  });

  it("a value outside the column's range falls back to the t interval, named so", () => {
    const e = estimate([0.2, 5, 0.4], undefined, 'unit');
    expect(e.method).toBe('t');
  });
});
