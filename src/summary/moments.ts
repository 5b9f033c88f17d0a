/**
 * Running statistics of a column of scores, so a summary needs no value kept per rollout:
 * exact sums of the values and of their squares (compensated-sum.ts; the mean is the one
 * `mean()` of stats.ts gives, to the bit), counts of values outside the scale's range, and,
 * when rollouts of one task are pooled, the per-task sums and counts that the cluster-robust
 * error needs. Every figure is a function of exact sums and counts, so it does not depend on
 * the order the values came in. `estimate()` in stats.ts gives the same interval from the
 * values themselves (to rounding: a property test holds the two together).
 */
import { CompensatedSum } from './compensated-sum.js';
import { interval, type Estimate, type Scale } from './stats.js';

/** Per-task sums and counts of one column, by slot (task-table.ts keeps them). */
export interface TaskColumn {
  /** The exact sum of the task's values, rounded once. */
  sum(slot: number): number;
  count(slot: number): number;
}

export class Moments {
  n = 0;
  private readonly sum = new CompensatedSum();
  private readonly squares = new CompensatedSum();
  private outsideUnit = 0;
  private notBinary = 0;
  private negative = 0;
  /** Some task holds two values or more: the error is then the clustered one. */
  repeats = false;

  /** Adds a value (finite; the caller skips missing ones). */
  push(x: number): void {
    this.n++;
    // Most scores are 0 or 1: a 0 changes no sum, a 1 adds exactly 1 to both.
    if (x === 0) return;
    if (x === 1) {
      this.sum.add(1);
      this.squares.add(1);
      return;
    }
    this.sum.add(x);
    this.squares.addProduct(x, x);
    if (!(x >= 0 && x <= 1)) this.outsideUnit++;
    // 0 and 1 returned above: anything here is not binary.
    this.notBinary++;
    if (!(x >= 0)) this.negative++;
  }

  /**
   * The sum of squared deviations from the mean, Σx² − (Σx)²/n, from n·Σx² − (Σx)² taken
   * exactly (every product of partial sums is exact) and rounded once before the division.
   */
  private deviations(): number {
    const d = new CompensatedSum();
    for (const q of this.squares.terms()) d.addProduct(q, this.n);
    const s = this.sum.terms();
    for (const a of s) for (const b of s) d.addProduct(-a, b);
    return Math.max(0, d.value) / this.n;
  }

  /** The exact Σx and Σx², each rounded once. */
  sums(): { sum: number; squares: number } {
    return { sum: this.sum.value, squares: this.squares.value };
  }

  mean(): number | null {
    return this.n === 0 ? null : this.sum.value / this.n;
  }

  /**
   * The estimate over the values pushed. `tasks` holds the per-task sums and counts when the
   * column was kept per task; they are used when some task holds more than one value.
   */
  estimate(scale: Scale, tasks?: { column: TaskColumn; slots: number }): Estimate {
    const m = this.mean();
    if (m === null) return { n: 0, mean: null, stderr: null, ci95: null, method: null };
    const n = this.n;
    let se: number | null = n < 2 ? null : Math.sqrt(this.deviations() / (n - 1)) / Math.sqrt(n);
    let units = n;
    const clustered = this.repeats && tasks !== undefined;
    if (clustered) {
      // CR1 over tasks: G/(G-1) · Σ_g (S_g − n_g·m)² / N², G the tasks holding a value. Each
      // term depends on its task alone and the terms add exactly: no order of tasks matters.
      let groups = 0;
      const ss = new CompensatedSum();
      for (let slot = 0; slot < tasks.slots; slot++) {
        const count = tasks.column.count(slot);
        if (count === 0) continue;
        groups++;
        const r = tasks.column.sum(slot) - count * m;
        ss.add(r * r);
      }
      units = groups;
      se = groups < 2 ? null : Math.sqrt(((groups / (groups - 1)) * ss.value) / (n * n));
    }
    const fits = scale === 'unit' ? this.outsideUnit === 0 : scale === 'count' ? this.negative === 0 : false;
    return interval({ n, mean: m, se, units, clustered, fits, binary: this.notBinary === 0 }, scale);
  }
}
