/**
 * Anytime-valid confidence sequences for the mean of scores in [0, 1], and for the mean of
 * paired differences in [-1, 1] (rescaled to [0, 1]). A confidence sequence is a 95%
 * interval at every n at once: the chance that it ever leaves out the true mean, however
 * often it is looked at and whenever the run stops, is at most alpha. That is what makes
 * "stop as soon as the interval is narrow enough / excludes 0" honest.
 *
 * The interval's lower end is the m where the mixture's wealth on "the mean is above m"
 * (betting.ts) equals 2/alpha; the upper end is the same bet on 1 - x. Both wealths are
 * monotone in m, so each end is a 1-D search.
 *
 * The wealth at n depends only on which scores were seen, not their order: the interval is
 * the same whether a run computed it live or a resume recomputes it from the records. The
 * stopping time still depends on the order, which is why callers feed tasks in index order.
 *
 * API:
 * - `new ConfidenceSequence({ alpha })`: `.push(x)` a score in [0, 1] (O(1) amortised;
 *   scores are kept as distinct values with counts), `.interval()` the current
 *   `{ n, mean, low, high, halfWidth }` (O(distinct values x 30) per bisection step),
 *   `.contains(m)`.
 * - `new PairedConfidenceSequence({ alpha })`: `.push(a, b)` a task's score in this run and
 *   in the baseline; `.interval()` of the mean of a - b in [-1, 1]; `.verdict(margin)`.
 * - `FixedMeanTest` (fixed-mean-test.ts) answers `contains(m)` cheaply, for simulations.
 */
import { CompensatedSum } from './compensated-sum.js';
import { checkAlpha, checkUnit, DEFAULT_ALPHA, logWealth, logWealthSlope, type SequenceOptions } from './betting.js';

/** How far the bisections go: the ends are exact to this, and rounded outward. */
const TOLERANCE = 1e-9;

/** The state of a confidence sequence after n scores. */
export interface SequenceInterval {
  n: number;
  /** Mean of the scores so far (null before the first). */
  mean: number | null;
  low: number;
  high: number;
  /** (high - low) / 2. */
  halfWidth: number;
}

const slopeOut = new Float64Array(1);

/** A confidence sequence for the mean of scores in [0, 1]. */
export class ConfidenceSequence {
  readonly alpha: number;
  private readonly threshold: number;
  private values = new Float64Array(8);
  private counts = new Float64Array(8);
  private distinct = 0;
  private readonly index = new Map<number, number>();
  private readonly sum = new CompensatedSum();
  private count = 0;
  /** The ends last computed, where the next search starts. */
  private lastLow = 0;
  private lastHigh = 1;

  constructor(options: SequenceOptions = {}) {
    this.alpha = checkAlpha(options.alpha ?? DEFAULT_ALPHA);
    this.threshold = Math.log(2 / this.alpha);
  }

  /** Scores pushed so far. */
  get n(): number {
    return this.count;
  }

  /** Adds one score in [0, 1]. */
  push(x: number): void {
    checkUnit(x);
    let j = this.index.get(x);
    if (j === undefined) {
      j = this.distinct++;
      if (j === this.values.length) {
        const values = new Float64Array(j * 2);
        values.set(this.values);
        this.values = values;
        const counts = new Float64Array(j * 2);
        counts.set(this.counts);
        this.counts = counts;
      }
      this.values[j] = x;
      this.index.set(x, j);
    }
    this.counts[j]! += 1;
    this.sum.add(x);
    this.count++;
  }

  /** log wealth minus the threshold: >= 0 where m is left out on that side. */
  private excess(m: number, side: 1 | -1): number {
    return logWealth(this.values, this.counts, this.distinct, m, side) - this.threshold;
  }

  /** True while m is inside the current interval. */
  contains(m: number): boolean {
    if (this.count === 0) return m >= 0 && m <= 1;
    return this.excess(m, 1) < 0 && this.excess(m, -1) < 0;
  }

  /**
   * The end on one side: the m between `out` (left out) and `inside` (not) where the wealth
   * crosses the threshold. Newton's method from `start` (the last end: it moves little from
   * one score to the next), kept inside the bracket and bisecting when a step would leave
   * it; once a step is below the tolerance, one point just across closes the bracket.
   * Returns the bracket's left-out end, so the interval is rounded outward.
   */
  private edge(out: number, inside: number, side: 1 | -1, start: number): number {
    const between = (x: number): boolean => (x - out) * (x - inside) < 0;
    let x = between(start) ? start : (out + inside) / 2;
    for (let i = 0; i < 200 && Math.abs(inside - out) > TOLERANCE; i++) {
      const f = logWealthSlope(this.values, this.counts, this.distinct, x, side, slopeOut) - this.threshold;
      if (f >= 0) out = x;
      else inside = x;
      if (Math.abs(inside - out) <= TOLERANCE) break;
      let next = x - f / slopeOut[0]!;
      if (!between(next)) next = (out + inside) / 2;
      else if (Math.abs(next - x) < TOLERANCE / 2) {
        // converged from one side: step just across the root to close the bracket
        const towardInside = Math.sign(inside - out);
        next = f >= 0 ? x + (towardInside * TOLERANCE) / 2 : x - (towardInside * TOLERANCE) / 2;
        if (!between(next)) next = (out + inside) / 2;
      }
      x = next;
    }
    return out;
  }

  /** The current interval (all of [0, 1] before the first score). */
  interval(): SequenceInterval {
    const n = this.count;
    if (n === 0) return { n, mean: null, low: 0, high: 1, halfWidth: 0.5 };
    const mean = Math.min(1, Math.max(0, this.sum.value / n));
    // the wealth at the mean is at most 1 < 2/alpha on both sides (log(1 + u) <= u), so the mean is inside
    const low = this.excess(0, 1) >= 0 ? this.edge(0, mean, 1, this.lastLow) : 0;
    const high = this.excess(1, -1) >= 0 ? this.edge(1, mean, -1, this.lastHigh) : 1;
    this.lastLow = low;
    this.lastHigh = high;
    return { n, mean: this.sum.value / n, low, high, halfWidth: (high - low) / 2 };
  }
}

/** How a paired comparison came out: this run better, worse, within ±margin, or not yet known. */
export type Verdict = 'better' | 'worse' | 'equivalent' | 'undecided';

/** The verdict an interval of a difference gives: excluding 0 first, then within ±margin. */
export function verdictOf(low: number, high: number, margin = 0): Verdict {
  if (low > 0) return 'better';
  if (high < 0) return 'worse';
  if (margin > 0 && low >= -margin && high <= margin) return 'equivalent';
  return 'undecided';
}

/**
 * A confidence sequence for the mean paired difference a - b of two scores in [0, 1] per
 * task (a from this run, b from the baseline): the differences are mapped to [0, 1] by
 * (a - b + 1) / 2 and the interval mapped back.
 */
export class PairedConfidenceSequence {
  private readonly inner: ConfidenceSequence;

  constructor(options: SequenceOptions = {}) {
    this.inner = new ConfidenceSequence(options);
  }

  get n(): number {
    return this.inner.n;
  }

  push(a: number, b: number): void {
    checkUnit(a);
    checkUnit(b);
    this.inner.push((a - b + 1) / 2);
  }

  /** The interval of the mean difference, in [-1, 1]. */
  interval(): SequenceInterval {
    const s = this.inner.interval();
    const low = 2 * s.low - 1;
    const high = 2 * s.high - 1;
    return { n: s.n, mean: s.mean === null ? null : 2 * s.mean - 1, low, high, halfWidth: (high - low) / 2 };
  }

  verdict(margin = 0): Verdict {
    const s = this.interval();
    return verdictOf(s.low, s.high, margin);
  }
}
/** run.json's `sequential`: the rule, where the sequence stands, and what a fixed design would have needed. */
export interface SequentialRecord {
  rule: 'precision' | 'decided';
  /** `--precision`'s W, or null. */
  width: number | null;
  alpha: number;
  /** Always true: the interval is a confidence sequence, valid at whatever point the run stopped. */
  anytime_valid: true;
  method: 'betting-mixture';
  /** Tasks in the sequence (complete, in index order). */
  tasks: number;
  last_index: number | null;
  mean: number | null;
  low: number;
  high: number;
  half_width: number;
  /** True when the rule stopped the run. */
  reached: boolean;
  /**
   * `precision`: the tasks a fixed-n 95% interval of ±W needs at the observed standard
   * deviation; `decided`: the tasks a fixed paired design needs to detect a difference of
   * `fixed_design_difference` with 80% power at 5%, at the observed spread of the differences. Null when unknown.
   */
  fixed_design_tasks: number | null;
  /** `decided` only: the run compared with (`--against`), as named. */
  against?: string;
  /** `decided` only: `--margin`. */
  margin?: number;
  /** `decided` only: the verdict (`undecided` when the run ended without one). */
  verdict?: Verdict;
  /** `decided` only: the difference the fixed design is planned to detect (`--margin`, or 0.05 without one). */
  fixed_design_difference?: number;
}
