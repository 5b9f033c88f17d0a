import { describe, expect, it } from 'vitest';
import { bootstrapPercentiles, holmRejects, pairedTTest, tTwoSidedP } from '../../src/summary/paired.js';
import { pairedBootstrap } from '../../src/summary/stats.js';

/** A deterministic stream in [0, 1). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/** Per-task reward differences of two models like the benchmark's: 0.6·bas + 0.4·F1 each. */
function rewardDiffs(n: number, seed: number, shift: number): Float64Array {
  const r = lcg(seed);
  const reward = (p: number) => 0.6 * (r() < p ? 1 : 0) + (0.4 * Math.round(r() * 12)) / 12;
  return Float64Array.from({ length: n }, () => reward(0.3 + shift) - reward(0.3));
}

describe("Student's t, two-sided", () => {
  it('gives 0.05 at the tabled 97.5% points', () => {
    expect(tTwoSidedP(12.706, 1)).toBeCloseTo(0.05, 4);
    expect(tTwoSidedP(2.228, 10)).toBeCloseTo(0.05, 4);
    expect(tTwoSidedP(2.042, 30)).toBeCloseTo(0.05, 4);
    expect(tTwoSidedP(1.959964, 1e7)).toBeCloseTo(0.05, 5);
    // t = 2 on 10 degrees of freedom: 0.0734 (R: 2 * pt(-2, 10)).
    expect(tTwoSidedP(2, 10)).toBeCloseTo(0.07339, 4);
    expect(tTwoSidedP(0, 5)).toBeCloseTo(1, 12);
  });
});

describe('the paired t-test', () => {
  it('worked by hand: differences 1, 2, 3, 4, 5 have mean 3, se 0.7071, t 4.243 on 4 df', () => {
    const t = pairedTTest([1, 2, 3, 4, 5]);
    expect(t.mean).toBe(3);
    expect(t.p).toBeCloseTo(tTwoSidedP(3 / Math.sqrt(0.5), 4), 12);
    expect(t.p).toBeCloseTo(0.01324, 4);
  });

  it('differences without spread tell apart when not 0, never when 0; one difference tells nothing', () => {
    expect(pairedTTest([0.4, 0.4, 0.4]).p).toBe(0);
    expect(pairedTTest([0, 0, 0]).p).toBe(1);
    expect(pairedTTest([0.4]).p).toBe(1);
    expect(pairedTTest([]).mean).toBeNull();
  });
});

describe("Holm's correction", () => {
  it('steps down from the smallest p and stops at the first that fails', () => {
    // Sorted: 0.005 <= 0.05/4, 0.01 <= 0.05/3, 0.03 > 0.05/2: stop.
    expect(holmRejects([0.01, 0.04, 0.03, 0.005])).toEqual([true, false, false, true]);
    expect(holmRejects([0.04])).toEqual([true]);
    expect(holmRejects([0.04, 0.04])).toEqual([false, false]);
  });
});

describe('the bootstrap interval of a large sample', () => {
  it('read off the bootstrap distribution agrees with drawn resamples to within their Monte Carlo error', () => {
    const diffs = rewardDiffs(4000, 3, 0.05);
    const drawn = pairedBootstrap(diffs, 1, 4000);
    expect(drawn.method).toBe('drawn');
    const read = bootstrapPercentiles(diffs)!;
    let m = 0;
    for (const d of diffs) m += d / diffs.length;
    let ss = 0;
    for (const d of diffs) ss += (d - m) ** 2;
    const se = Math.sqrt(ss / diffs.length / diffs.length);
    // 4,000 resamples put a percentile within about 0.04 standard errors of the exact one.
    expect(Math.abs(read[0] - drawn.ci95![0])).toBeLessThan(0.2 * se);
    expect(Math.abs(read[1] - drawn.ci95![1])).toBeLessThan(0.2 * se);
    // And both are the normal interval to first order.
    expect(read[0]).toBeCloseTo(m - 1.96 * se, 3);
  });

  it('is used past 2^24 draws, and gives the printed digits of drawing on 100,000 tasks', () => {
    const diffs = rewardDiffs(100_000, 9, 0.02);
    const b = pairedBootstrap(diffs, 1, 10_000);
    expect(b.method).toBe('expansion');
    expect(b.n).toBe(100_000);
    // The drawn interval (seed 1, 10,000 resamples: 46 s with bas 0.4) printed the same digits.
    expect(b.ci95!.map((x) => x.toFixed(3))).toEqual(DRAWN_100K);
  });

  it('a sample without spread has an interval of one point', () => {
    expect(bootstrapPercentiles(new Float64Array(10).fill(0.25))).toEqual([0.25, 0.25]);
  });
});

// Printed by the drawn bootstrap of bas 0.4 on rewardDiffs(100_000, 9, 0.02), seed 1, 10,000
// resamples: [0.009751, 0.015051] (180 s on a loaded machine); the expansion gives [0.009704, 0.015000].
const DRAWN_100K = ['0.010', '0.015'];
