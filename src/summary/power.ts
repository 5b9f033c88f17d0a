/**
 * Planning a fixed design (`bas plan`): the tasks needed to detect a difference D with 80%
 * power in a two-sided test at 5%, from a pilot's scores. One run: the one-sample case (the
 * run's mean told from a value D away). Two runs sharing tasks: the paired case (the mean of
 * per-task differences told from 0). Several rollouts per task: the variance of a task's mean
 * is split into between-task and within-task parts by one-way ANOVA, and planned for the
 * rollouts the new run will have (the design effect 1 + (r − 1)ρ). Pure functions over
 * arrays of numbers; formulas and references in docs/statistics.md (Power and planning).
 *
 * The sequential rule is planned by simulation instead: the pilot's per-task scores (or paired
 * differences), shifted to the difference planned for, resampled with a fixed seed and fed to
 * the confidence sequence until it decides.
 */
import { CompensatedSum } from './compensated-sum.js';
import { noiseSplit } from './noise.js';
import { Rng } from '../task/random.js';
import { FixedMeanTest } from './fixed-mean-test.js';

/** z for a two-sided 5% test (the 97.5% point of the standard normal). */
export const Z_ALPHA = 1.959963984540054;
/** z for 80% power (the 80% point of the standard normal). */
export const Z_POWER = 0.8416212335729143;

/** One task's scores: one per rollout (errored rollouts as 0). */
export type TaskScores = ArrayLike<number>;

/** A pilot's scores split by one-way ANOVA into between-task and within-task variance. */
export interface VarianceSplit {
  tasks: number;
  /** Rollouts over all tasks. */
  rollouts: number;
  /** Mean of the per-task means. */
  mean: number;
  /** Variance of the per-task means, as observed (n − 1 in the denominator). */
  task_mean_variance: number;
  /** Within-task variance (pooled over tasks with two rollouts or more); null when no task has two. */
  within: number | null;
  /** Between-task variance of the true task means (ANOVA, floored at 0); null when `within` is. */
  between: number | null;
  /** Intra-class correlation between/(between + within); null when either is unknown or both are 0. */
  icc: number | null;
}

/**
 * The ANOVA split of `tasks` (each a task's rollout scores). With one rollout everywhere the
 * within-task part cannot be told: `within`, `between` and `icc` are null, and a plan uses the
 * variance of the task means as it is (which is right for one rollout per task).
 */
export function varianceSplit(tasks: readonly TaskScores[]): VarianceSplit {
  const k = tasks.length;
  const means = tasks.map((t) => meanOf(t));
  const grand = k ? means.reduce((a, b) => a + b, 0) / k : Number.NaN;
  let taskVar = 0;
  for (const m of means) taskVar += (m - grand) ** 2;
  taskVar = k > 1 ? taskVar / (k - 1) : Number.NaN;
  // The ANOVA itself is the summary's noise split (Searle's unbalanced k₀), fed exact sums.
  const sum = new CompensatedSum();
  const squares = new CompensatedSum();
  let n = 0;
  const groups = tasks.map((t) => {
    const own = new CompensatedSum();
    for (let j = 0; j < t.length; j++) {
      own.add(t[j]!);
      squares.addProduct(t[j]!, t[j]!);
    }
    sum.add(own.value);
    n += t.length;
    return { count: t.length, sum: own.value };
  });
  const split = noiseSplit(groups, sum.value, squares.value);
  if (split === null)
    return { tasks: k, rollouts: n, mean: grand, task_mean_variance: taskVar, within: null, between: null, icc: null };
  const within = split.within_variance;
  const between = split.between_variance;
  const icc = between + within > 0 ? between / (between + within) : null;
  return { tasks: k, rollouts: n, mean: grand, task_mean_variance: taskVar, within, between, icc };
}

function meanOf(t: TaskScores): number {
  let s = 0;
  for (let j = 0; j < t.length; j++) s += t[j]!;
  return t.length ? s / t.length : Number.NaN;
}

/**
 * The variance of one task's mean score in a run with `rollouts` rollouts per task: between +
 * within / rollouts, or the observed variance of the task means when the pilot had one
 * rollout per task (then only `rollouts` = 1 can be planned from it, and is).
 */
export function taskMeanVariance(s: VarianceSplit, rollouts: number): number {
  if (s.within === null || s.between === null) return s.task_mean_variance;
  return s.between + s.within / rollouts;
}

/** The design effect 1 + (r − 1)ρ of `rollouts` rollouts per task; null when ρ is unknown. */
export function designEffect(s: VarianceSplit, rollouts: number): number | null {
  return s.icc === null ? null : 1 + (rollouts - 1) * s.icc;
}

/**
 * Tasks for a two-sided test at 5% to reach 80% power against a true difference `d`, when one
 * task's score (or score difference) has variance `variance`: ⌈(z_α/2 + z_β)² σ² / d²⌉, at
 * least 2. Null when the difference is 0 or the variance unknown.
 */
export function tasksNeeded(variance: number, d: number): number | null {
  if (!(Math.abs(d) > 0) || !Number.isFinite(variance) || variance < 0) return null;
  return Math.max(2, Math.ceil(((Z_ALPHA + Z_POWER) ** 2 * variance) / (d * d)));
}

/** The paired variance split: per-task differences of B − A over tasks both ran. */
export interface PairedSplit {
  tasks: number;
  /** Mean of the per-task differences. */
  mean: number;
  /** Observed variance of the per-task differences. */
  diff_variance: number;
  /** Each run's within-task variance (null when it had one rollout per task). */
  within_a: number | null;
  within_b: number | null;
  /** Variance of the true per-task difference: the observed variance less the rollout noise, floored at 0. */
  between: number | null;
}

/**
 * The paired split of two runs' scores on shared tasks (`a[i]` and `b[i]` the same task). The
 * rollout noise in an observed difference is within_a / r_a + within_b / r_b; what is left of
 * the differences' variance is the spread of the true differences.
 */
export function pairedSplit(a: readonly TaskScores[], b: readonly TaskScores[]): PairedSplit {
  const k = a.length;
  const diffs = a.map((t, i) => meanOf(b[i]!) - meanOf(t));
  const mean = k ? diffs.reduce((x, y) => x + y, 0) / k : Number.NaN;
  let v = 0;
  for (const d of diffs) v += (d - mean) ** 2;
  v = k > 1 ? v / (k - 1) : Number.NaN;
  const wa = varianceSplit(a).within;
  const wb = varianceSplit(b).within;
  let between: number | null = null;
  if (wa !== null || wb !== null) {
    let noise = 0;
    for (let i = 0; i < k; i++) noise += (wa ?? 0) / a[i]!.length + (wb ?? 0) / b[i]!.length;
    between = Math.max(0, v - noise / k);
  }
  return { tasks: k, mean, diff_variance: v, within_a: wa, within_b: wb, between };
}

/**
 * The variance of one task's score difference with `rollouts` rollouts per task in each run;
 * the observed variance when neither run has within-task information.
 */
export function pairedVariance(s: PairedSplit, rollouts: number): number {
  if (s.between === null) return s.diff_variance;
  return s.between + ((s.within_a ?? 0) + (s.within_b ?? 0)) / rollouts;
}

/**
 * `xs` shifted by one constant and kept within [lo, hi] so that their mean is `target`
 * exactly: x ↦ min(hi, max(lo, x + c)), with c found by bisection (the mean is monotone in c).
 * A plain shift would leave the score range; clipping alone would miss the target.
 */
export function shiftToMean(xs: readonly number[], target: number, lo: number, hi: number): number[] {
  const at = (c: number) => xs.reduce((s, x) => s + Math.min(hi, Math.max(lo, x + c)), 0) / xs.length;
  let a = lo - hi;
  let b = hi - lo;
  for (let i = 0; i < 200 && b - a > 1e-13; i++) {
    const c = (a + b) / 2;
    if (at(c) < target) a = c;
    else b = c;
  }
  const c = (a + b) / 2;
  return xs.map((x) => Math.min(hi, Math.max(lo, x + c)));
}

/** What the sequential rule took over simulated runs. */
export interface SequentialPlan {
  simulations: number;
  seed: number;
  /** The tasks at which a simulated run gives up, undecided. */
  cap: number;
  /** Tasks at which half the simulated runs had decided (the cap when fewer than half did). */
  median_tasks: number;
  /** Mean tasks, an undecided run counted at the cap (so a lower bound when some are undecided). */
  mean_tasks: number;
  /** Tasks by which 90% of the runs had decided (the cap when fewer did). */
  p90_tasks: number;
  /** Share of simulated runs still undecided at the cap. */
  undecided: number;
  /** Share of decided runs whose verdict had the wrong sign (should be small: at most 2.5% at D = 0). */
  wrong_sign: number;
}

/**
 * The sequential rule of the confidence sequences (FixedMeanTest, fixed-mean-test.ts) run on
 * streams drawn from a pilot: `scores` (one per task, in [0, 1]) resampled with replacement by a
 * seeded generator, each run stopping when the sequence leaves out `m0` (one-sample) or at
 * `cap` tasks. `scores` are already shifted to the difference planned for (shiftToMean).
 * `truth` says which side is right, for the wrong-sign count.
 */
export function simulateSequential(
  scores: readonly number[],
  m0: number,
  truth: 'above' | 'below',
  o: { simulations: number; seed: number; cap: number },
): SequentialPlan {
  const taken: number[] = [];
  let undecided = 0;
  let wrong = 0;
  for (let s = 0; s < o.simulations; s++) {
    const rng = Rng.forTask(o.seed, s);
    const test = new FixedMeanTest(m0);
    let n = 0;
    let decided = false;
    while (n < o.cap) {
      test.push(scores[rng.int(0, scores.length - 1)]!);
      n++;
      if (test.excluded !== null) {
        decided = true;
        if (test.excluded !== truth) wrong++;
        break;
      }
    }
    if (!decided) undecided++;
    taken.push(n);
  }
  taken.sort((a, b) => a - b);
  const q = (p: number) => taken[Math.min(taken.length - 1, Math.ceil(p * taken.length) - 1)]!;
  const decidedRuns = o.simulations - undecided;
  return {
    simulations: o.simulations,
    seed: o.seed,
    cap: o.cap,
    median_tasks: q(0.5),
    mean_tasks: taken.reduce((a, b) => a + b, 0) / taken.length,
    p90_tasks: q(0.9),
    undecided: undecided / o.simulations,
    wrong_sign: decidedRuns ? wrong / decidedRuns : 0,
  };
}
