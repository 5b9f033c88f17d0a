/**
 * Summary parts computed from whole columns at the end: pass@k over tasks, the reward
 * histogram, and the fault counts pooled over codes.
 */
import { CompensatedSum } from './compensated-sum.js';
import { passAtK, passKs } from './stats.js';

export interface PassAtKRow {
  k: number;
  value: number;
  /** Tasks with at least k rollouts, the ones averaged. */
  tasks: number;
}

export interface HistogramBin {
  lo: number;
  hi: number;
  count: number;
}

/** pass@k per task, averaged (an exact sum: in any order of tasks) over the tasks that have at least k rollouts. */
export function passAtKRows(tasks: Map<number, { n: number; c: number }>, maxRollouts: number): PassAtKRow[] {
  return passKs(maxRollouts).map((k) => {
    const sum = new CompensatedSum();
    let used = 0;
    for (const t of tasks.values()) {
      const p = passAtK(t.n, t.c, k);
      if (p === null) continue;
      sum.add(p);
      used++;
    }
    return { k, value: used ? sum.value / used : 0, tasks: used };
  });
}

/** The bin (0..9) of a reward in the ten bins of width 0.1; the last bin includes 1.0. */
export function histogramBin(x: number): number {
  // Rewards are sums of tenths-ish values; the epsilon keeps 0.3 (0.29999…) in its own bin.
  return Math.min(9, Math.max(0, Math.floor(x * 10 + 1e-9)));
}

/** The ten bins, from their counts. */
export function histogram(counts: ArrayLike<number>): HistogramBin[] {
  return Array.from({ length: 10 }, (_, i) => ({ lo: i / 10, hi: (i + 1) / 10, count: counts[i] ?? 0 }));
}

/**
 * Precision and recall pooled over every claimed and every true (row, code) pair of the
 * completed rollouts, unknown codes counted as false claims. Unlike the per-rollout mean
 * `metrics.fault_precision` (the original's metric, 0 for a rollout that claims nothing),
 * a rollout that claims nothing adds nothing here.
 */
export interface PooledFaults {
  tp: number;
  fp: number;
  fn: number;
  /** tp / (tp + fp); null when nothing was claimed. */
  precision: number | null;
  /** tp / (tp + fn); null when the keys held no fault. */
  recall: number | null;
}

/** Sums the per-code counts; `unknown` claimed pairs (codes none of the five) are false claims. */
export function pooledFaults(codes: Array<{ tp: number; fp: number; fn: number }>, unknown: number): PooledFaults {
  let [tp, fp, fn] = [0, unknown, 0];
  for (const c of codes) {
    tp += c.tp;
    fp += c.fp;
    fn += c.fn;
  }
  return { tp, fp, fn, precision: tp + fp ? tp / (tp + fp) : null, recall: tp + fn ? tp / (tp + fn) : null };
}
