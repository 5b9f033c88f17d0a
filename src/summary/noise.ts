/**
 * With several rollouts per task, where the variance of a mean reward comes from: the spread
 * of one task's rewards around the task's own mean (prediction noise: another rollout of the
 * same task would score differently) and the spread of the tasks' means (data noise: other
 * tasks would score differently). One-way random-effects ANOVA, with the unbalanced
 * (Searle) effective number of rollouts per task; the same split as Miller, "Adding error
 * bars to evals" (arXiv 2411.00640), section 3 ("resampling"). docs/statistics.md, "Noise
 * split", has the formulas and the cost model behind the best number of rollouts per task.
 */
import { CompensatedSum } from './compensated-sum.js';

export interface NoiseSplit {
  /** Tasks holding a value, and the values over them (completed rollouts). */
  tasks: number;
  rollouts: number;
  /** Rollouts per task on average (rollouts / tasks). */
  rollouts_per_task: number;
  /** σ²_w: the variance of one task's rewards around its own mean (MSW). */
  within_variance: number;
  /** σ²_b: the variance of the tasks' own means, (MSB − MSW) / k₀, at least 0. */
  between_variance: number;
  /** The variance of the mean reward: data_noise + prediction_noise. */
  variance_of_mean: number;
  /** σ²_b · Σk_i² / N²: what other tasks would change (σ²_b / n when every task has K). */
  data_noise: number;
  /** σ²_w / N: what other rollouts of the same tasks would change. */
  prediction_noise: number;
  /** prediction_noise / variance_of_mean (null when both are 0). */
  prediction_share: number | null;
  /**
   * For the same number of requests (rollouts), the half-width of the 95% interval with K
   * rollouts per task on rollouts/K tasks: K = 1, 2, 4, 8 and the run's own K (rounded).
   */
  same_requests: Array<{ rollouts_per_task: number; tasks: number; half_width: number }>;
  /**
   * The rollouts per task that give the narrowest interval for the same requests when every
   * request costs the same and a new task costs nothing more (generated tasks): 1 whenever the
   * tasks differ at all. With a task costing c requests more, it is √(c · σ²_w / σ²_b).
   */
  best_rollouts_per_task: number;
}

/** 1.96: the 95% normal quantile the half-widths use. */
const Z95 = 1.959963984540054;

/**
 * The split for a column of values in groups (tasks): `tasks` gives each group's count and
 * exact sum, `sum` and `squares` the column's exact Σx and Σx². Null when no task has two
 * values or fewer than two tasks have any (nothing to split).
 */
export function noiseSplit(
  tasks: Iterable<{ count: number; sum: number }>,
  sum: number,
  squares: number,
): NoiseSplit | null {
  let n = 0;
  let total = 0;
  let countSquares = 0;
  const between = new CompensatedSum(); // Σ S_i² / k_i
  for (const t of tasks) {
    if (t.count === 0) continue;
    n++;
    total += t.count;
    countSquares += t.count * t.count;
    between.add((t.sum * t.sum) / t.count);
  }
  if (n < 2 || total <= n) return null;
  const ssWithin = Math.max(0, squares - between.value);
  const ssBetween = Math.max(0, between.value - (sum * sum) / total);
  const msWithin = ssWithin / (total - n);
  const msBetween = ssBetween / (n - 1);
  // Searle's k₀: the rollouts per task an unbalanced design counts as (K when balanced).
  const k0 = (total - countSquares / total) / (n - 1);
  const within = msWithin;
  const betweenVar = Math.max(0, (msBetween - msWithin) / k0);
  const data = (betweenVar * countSquares) / (total * total);
  const prediction = within / total;
  const variance = data + prediction;
  const own = Math.max(1, Math.round(total / n));
  const ks = [...new Set([1, 2, 4, 8, own])].sort((a, b) => a - b);
  return {
    tasks: n,
    rollouts: total,
    rollouts_per_task: total / n,
    within_variance: within,
    between_variance: betweenVar,
    variance_of_mean: variance,
    data_noise: data,
    prediction_noise: prediction,
    prediction_share: variance > 0 ? prediction / variance : null,
    same_requests: ks.map((k) => ({
      rollouts_per_task: k,
      tasks: Math.floor(total / k),
      half_width: Z95 * Math.sqrt((k * betweenVar + within) / total),
    })),
    best_rollouts_per_task: bestRollouts(within, betweenVar, 0),
  };
}

/**
 * The whole number of rollouts per task K ≥ 1 that minimises the variance per unit of cost,
 * (σ²_b + σ²_w/K)(c + K), where a rollout costs 1 and a task c more: the continuous optimum
 * √(c σ²_w / σ²_b), then the better of the whole numbers either side. Ties go to fewer
 * rollouts; no spread between tasks at all (σ²_b = 0) makes every K alike when c = 0 (1),
 * and as many as possible otherwise (reported as Infinity).
 */
export function bestRollouts(within: number, between: number, taskCost: number): number {
  if (!(between > 0)) return taskCost > 0 && within > 0 ? Infinity : 1;
  const k = Math.sqrt((taskCost * within) / between);
  if (k <= 1) return 1;
  const cost = (x: number) => (between + within / x) * (taskCost + x);
  const lo = Math.floor(k);
  return cost(lo) <= cost(lo + 1) ? lo : lo + 1;
}
