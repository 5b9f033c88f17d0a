/**
 * Running statistics of a column of scores, so a summary needs no value kept per rollout: a
 * compensated sum for the mean (the one `mean()` of stats.ts uses, so the two agree to the
 * bit), Welford's sum of squared deviations for the standard error, counts of values outside
 * the scale's range, and, when rollouts of one task are pooled, the per-task sums and counts
 * that the cluster-robust error needs. `estimate()` in stats.ts gives the same interval from
 * the values themselves (to rounding: a property test holds the two together).
 */
import { CompensatedSum } from './compensated-sum.js';
import { interval, type Estimate, type Scale } from './stats.js';

/** Per-task sums and counts of one column, in the slots of a `TaskSlots` table. */
export interface TaskColumn {
  sums: Float64Array[];
  counts: Uint16Array[];
}

export class Moments {
  n = 0;
  private readonly sum = new CompensatedSum();
  private runningMean = 0;
  private squares = 0;
  private outsideUnit = 0;
  private notBinary = 0;
  private negative = 0;
  /** Some task holds two values or more: the error is then the clustered one. */
  repeats = false;

  /** Adds a value (finite; the caller skips missing ones). */
  push(x: number): void {
    this.n++;
    this.sum.add(x);
    const d = x - this.runningMean;
    this.runningMean += d / this.n;
    this.squares += d * (x - this.runningMean);
    if (!(x >= 0 && x <= 1)) this.outsideUnit++;
    if (x !== 0 && x !== 1) this.notBinary++;
    if (!(x >= 0)) this.negative++;
  }

  mean(): number | null {
    return this.n === 0 ? null : this.sum.value / this.n;
  }

  /**
   * The estimate over the values pushed. `tasks` holds the per-task sums and counts when the
   * column was kept per task; they are used when some task holds more than one value.
   */
  estimate(scale: Scale, tasks?: { column: TaskColumn; slots: number; chunkBits: number }): Estimate {
    const m = this.mean();
    if (m === null) return { n: 0, mean: null, stderr: null, ci95: null, method: null };
    const n = this.n;
    let se: number | null = n < 2 ? null : Math.sqrt(this.squares / (n - 1)) / Math.sqrt(n);
    let units = n;
    const clustered = this.repeats && tasks !== undefined;
    if (clustered) {
      // CR1 over tasks: G/(G-1) · Σ_g (S_g − n_g·m)² / N², G the tasks holding a value.
      let groups = 0;
      let ss = 0;
      const mask = (1 << tasks.chunkBits) - 1;
      for (let s = 0; s < tasks.slots; s++) {
        const count = tasks.column.counts[s >>> tasks.chunkBits]![s & mask]!;
        if (count === 0) continue;
        groups++;
        const r = tasks.column.sums[s >>> tasks.chunkBits]![s & mask]! - count * m;
        ss += r * r;
      }
      units = groups;
      se = groups < 2 ? null : Math.sqrt(((groups / (groups - 1)) * ss) / (n * n));
    }
    const fits = scale === 'unit' ? this.outsideUnit === 0 : scale === 'count' ? this.negative === 0 : false;
    return interval({ n, mean: m, se, units, clustered, fits, binary: this.notBinary === 0 }, scale);
  }
}
