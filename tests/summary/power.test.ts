/**
 * The fixed-design plan (src/summary/power.ts): the hand-worked cases of docs/statistics.md
 * (Power and planning), and simulations with fixed seeds that the planned number of tasks
 * reaches 80% power, clustered rollouts included.
 */
import { describe, expect, it } from 'vitest';
// mulberry32, the seeded generator bas serve draws its faults with: every draw is the same on every run.
import { seeded as rng } from '../../src/serve/answers.js';
import {
  designEffect,
  pairedSplit,
  pairedVariance,
  shiftToMean,
  simulateSequential,
  tasksNeeded,
  taskMeanVariance,
  varianceSplit,
  Z_ALPHA,
  Z_POWER,
} from '../../src/summary/power.js';

describe('the hand-worked cases of docs/statistics.md', () => {
  it('(z_α/2 + z_β)² is 7.8489', () => {
    expect((Z_ALPHA + Z_POWER) ** 2).toBeCloseTo(7.84888, 5);
  });

  it('one-sample, one rollout per task: scores 0, 1, 1, 1 and D = 0.1 need 197 tasks', () => {
    const s = varianceSplit([[0], [1], [1], [1]]);
    expect(s.mean).toBe(0.75);
    expect(s.task_mean_variance).toBeCloseTo(0.25, 12);
    expect(s.within).toBeNull();
    expect(taskMeanVariance(s, 1)).toBeCloseTo(0.25, 12);
    // 7.848879 × 0.25 / 0.01 = 196.22
    expect(tasksNeeded(taskMeanVariance(s, 1), 0.1)).toBe(197);
  });

  it('clustered: tasks [0,0], [1,1], [0,1] split into between 1/6 and within 1/6 (ρ = 0.5)', () => {
    const s = varianceSplit([
      [0, 0],
      [1, 1],
      [0, 1],
    ]);
    expect(s.within).toBeCloseTo(1 / 6, 12);
    expect(s.between).toBeCloseTo(1 / 6, 12);
    expect(s.icc).toBeCloseTo(0.5, 12);
    // Two rollouts per task: 1/6 + 1/12 = 0.25, design effect 1.5; one rollout: 1/3.
    expect(taskMeanVariance(s, 2)).toBeCloseTo(0.25, 12);
    expect(designEffect(s, 2)).toBeCloseTo(1.5, 12);
    expect(tasksNeeded(taskMeanVariance(s, 2), 0.1)).toBe(197);
    expect(tasksNeeded(taskMeanVariance(s, 1), 0.1)).toBe(262);
    // Many rollouts cannot take the variance below the between-task part: 7.848879 × (1/6 + 1/6000) / 0.01 = 130.9.
    expect(tasksNeeded(taskMeanVariance(s, 1000), 0.1)).toBe(131);
  });

  it('paired: differences 1, 0, 0, 0 and D = 0.25 need 32 tasks', () => {
    const s = pairedSplit([[0], [1], [1], [0]], [[1], [1], [1], [0]]);
    expect(s.mean).toBe(0.25);
    expect(s.diff_variance).toBeCloseTo(0.25, 12);
    expect(s.between).toBeNull();
    // 7.848879 × 0.25 / 0.0625 = 31.40
    expect(tasksNeeded(pairedVariance(s, 1), 0.25)).toBe(32);
  });

  it('paired with rollouts: the rollout noise is taken out of the differences, then planned for r', () => {
    // A: within 1/6 (as above); B the same tasks shifted: [1,1], [1,1], [0,1].
    const a = [
      [0, 0],
      [1, 1],
      [0, 1],
    ];
    const b = [
      [1, 1],
      [1, 1],
      [0, 1],
    ];
    const s = pairedSplit(a, b);
    // Differences 1, 0, 0: variance 1/3. Within: A 1/6, B (0 + 0 + 0.5)/3 = 1/6. Noise per task 1/12 + 1/12.
    expect(s.diff_variance).toBeCloseTo(1 / 3, 12);
    expect(s.within_a).toBeCloseTo(1 / 6, 12);
    expect(s.within_b).toBeCloseTo(1 / 6, 12);
    expect(s.between).toBeCloseTo(1 / 3 - 1 / 6, 12);
    expect(pairedVariance(s, 4)).toBeCloseTo(1 / 6 + 1 / 12, 12);
  });

  it('no difference or no variance plans nothing absurd', () => {
    expect(tasksNeeded(0.25, 0)).toBeNull();
    expect(tasksNeeded(Number.NaN, 0.1)).toBeNull();
    expect(tasksNeeded(0, 0.1)).toBe(2);
  });
});

/** Share of `trials` simulated studies of `n` tasks whose two-sided z-test at 5% rejects. */
function power(trials: number, n: number, draw: () => number, null0: number): number {
  let rejected = 0;
  for (let t = 0; t < trials; t++) {
    let s = 0;
    let ss = 0;
    for (let i = 0; i < n; i++) {
      const x = draw();
      s += x;
      ss += x * x;
    }
    const mean = s / n;
    const sd = Math.sqrt((ss - n * mean * mean) / (n - 1));
    if (Math.abs(mean - null0) / (sd / Math.sqrt(n)) > Z_ALPHA) rejected++;
  }
  return rejected / trials;
}

describe('the planned tasks reach 80% power (simulation, fixed seeds)', () => {
  it('one rollout per task, Bernoulli(0.6) against 0.5: about 0.8 over 4,000 studies', () => {
    const pilot = rng(1);
    const tasks = Array.from({ length: 400 }, () => [pilot() < 0.5 ? 1 : 0]);
    const n = tasksNeeded(taskMeanVariance(varianceSplit(tasks), 1), 0.1)!;
    expect(n).toBeGreaterThan(180);
    expect(n).toBeLessThan(215);
    const r = rng(2);
    const p = power(4000, n, () => (r() < 0.6 ? 1 : 0), 0.5);
    expect(p).toBeGreaterThan(0.76);
    expect(p).toBeLessThan(0.86);
  });

  it('three rollouts per task with task difficulty: the design effect plans for the cluster, and reaches 80%', () => {
    // Each task has its own chance of success p_i ~ Beta-like spread around 0.5; rollouts are Bernoulli(p_i).
    const taskP = (u: number) => 0.15 + 0.7 * u;
    const pilotDraw = rng(3);
    const pilot = Array.from({ length: 600 }, () => {
      const p = taskP(pilotDraw());
      return [0, 1, 2].map(() => (pilotDraw() < p ? 1 : 0));
    });
    const split = varianceSplit(pilot);
    // True parts: between Var(p) = 0.49/12 ≈ 0.0408; within E[p(1-p)] = 0.25 − 0.0408 ≈ 0.209.
    expect(split.between!).toBeGreaterThan(0.03);
    expect(split.between!).toBeLessThan(0.052);
    expect(split.within!).toBeGreaterThan(0.19);
    expect(split.within!).toBeLessThan(0.23);
    const n = tasksNeeded(taskMeanVariance(split, 3), 0.08)!;
    // A study: n tasks, each task's mean of 3 rollouts, true mean 0.58 against 0.5.
    const r = rng(4);
    const p = power(
      3000,
      n,
      () => {
        const q = Math.min(1, taskP(r()) + 0.08);
        return ((r() < q ? 1 : 0) + (r() < q ? 1 : 0) + (r() < q ? 1 : 0)) / 3;
      },
      0.5,
    );
    expect(p).toBeGreaterThan(0.75);
    expect(p).toBeLessThan(0.87);
  });
});

describe('the sequential rule simulated from a pilot (fixed seeds)', () => {
  it('shiftToMean reaches the target mean exactly and stays in the range', () => {
    const xs = [0, 0, 0.5, 1, 1, 1];
    for (const target of [0.1, 0.5, 0.75, 0.95]) {
      const out = shiftToMean(xs, target, 0, 1);
      expect(out.reduce((a, b) => a + b, 0) / out.length).toBeCloseTo(target, 9);
      for (const x of out) expect(x >= 0 && x <= 1).toBe(true);
    }
    const d = shiftToMean([-1, 0, 0, 1], 0.3, -1, 1);
    expect(d.reduce((a, b) => a + b, 0) / 4).toBeCloseTo(0.3, 9);
  });

  it('is the same for the same seed', () => {
    const pilot = rng(7);
    const scores = shiftToMean(
      Array.from({ length: 200 }, () => (pilot() < 0.5 ? 1 : 0)),
      0.6,
      0,
      1,
    );
    const o = { simulations: 300, seed: 5, cap: 2000 };
    expect(simulateSequential(scores, 0.5, 'above', o)).toEqual(simulateSequential(scores, 0.5, 'above', o));
  });

  it('with no true difference it almost never decides (at most 5% of 2,000 runs to 2,000 tasks)', () => {
    const pilot = rng(8);
    const raw: number[] = Array.from({ length: 300 }, () => (pilot() < 0.4 ? 1 : pilot() < 0.5 ? 0.5 : 0));
    const m0 = raw.reduce((a, b) => a + b, 0) / raw.length;
    const sim = simulateSequential(raw, m0, 'above', { simulations: 2000, seed: 1, cap: 2000 });
    expect(1 - sim.undecided).toBeLessThanOrEqual(0.05);
  });

  it('at the planned difference it decides, the right way, in a number of tasks of the order of the fixed design', () => {
    const pilot = rng(9);
    const raw = Array.from({ length: 400 }, () => (pilot() < 0.5 ? 1 : 0));
    const split = varianceSplit(raw.map((x) => [x]));
    const n = tasksNeeded(taskMeanVariance(split, 1), 0.1)!;
    const sim = simulateSequential(shiftToMean(raw, split.mean + 0.1, 0, 1), split.mean, 'above', {
      simulations: 2000,
      seed: 1,
      cap: 4 * n,
    });
    expect(sim.undecided).toBeLessThan(0.05);
    expect(sim.wrong_sign).toBe(0);
    expect(sim.median_tasks).toBeGreaterThan(0.3 * n);
    expect(sim.median_tasks).toBeLessThan(2 * n);
    expect(sim.p90_tasks).toBeGreaterThanOrEqual(sim.median_tasks);
  });

  it('a large paired difference (0.7 vs 0.3) is decided early, as docs/statistics.md says', () => {
    // Independent Bernoulli(0.7) and Bernoulli(0.3) per task: differences in {-1, 0, 1}, mapped to [0, 1].
    const pilot = rng(10);
    const diffs = Array.from({ length: 500 }, () => (pilot() < 0.7 ? 1 : 0) - (pilot() < 0.3 ? 1 : 0));
    const scores = shiftToMean(diffs, 0.4, -1, 1).map((x) => (x + 1) / 2);
    const sim = simulateSequential(scores, 0.5, 'above', { simulations: 1000, seed: 1, cap: 1000 });
    expect(sim.median_tasks).toBeLessThan(150);
    expect(sim.undecided).toBe(0);
  });
});
