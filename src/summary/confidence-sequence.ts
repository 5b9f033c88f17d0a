/**
 * Anytime-valid confidence sequences for the mean of scores in [0, 1], and for the mean of
 * paired differences in [-1, 1] (rescaled to [0, 1]). A confidence sequence is a 95%
 * interval at every n at once: the chance that it ever leaves out the true mean, however
 * often it is looked at and whenever the run stops, is at most alpha. That is what makes
 * "stop as soon as the interval is narrow enough / excludes 0" honest.
 *
 * Method (docs/statistics.md, "Anytime-valid intervals"): betting. For a candidate mean m,
 * a bettor with fraction b stakes on each score x and its wealth is the product of
 * (1 + b(x - m)); when m is the true mean this is a nonnegative martingale (Waudby-Smith
 * and Ramdas, "Estimating means of bounded random variables by betting", JRSS-B 2024), so
 * by Ville's inequality it ever reaches 2/alpha with chance at most alpha/2. One bettor
 * alone is tuned to one n, so the wealth here is the average over a fixed geometric grid
 * of 30 bets from 1.5 down to 0.02, each capped at 0.8/m (the product stays positive): an
 * average of martingales is a martingale, and the grid keeps the width near 1.65 times the
 * fixed-n CLT width at every n from about 50 to 30,000. The lower end of the interval is
 * the m where the "mean is above m" wealth equals 2/alpha; the upper end is the same bet on
 * 1 - x. Both wealths are monotone in m, so each end is a 1-D bisection.
 *
 * Because the bets are fixed (not chosen from the data), the wealth at n depends only on
 * which scores were seen, not their order: the interval is the same whether a run computed
 * it live or a resume recomputes it from the records. The stopping time still depends on
 * the order, which is why callers feed tasks in index order.
 *
 * API:
 * - `new ConfidenceSequence({ alpha })`: `.push(x)` a score in [0, 1] (O(1) amortised;
 *   scores are kept as distinct values with counts), `.interval()` the current
 *   `{ n, mean, low, high, halfWidth }` (O(distinct values x 30) per bisection step),
 *   `.contains(m)`.
 * - `new PairedConfidenceSequence({ alpha })`: `.push(a, b)` a task's score in this run and
 *   in the baseline; `.interval()` of the mean of a - b in [-1, 1]; `.verdict(margin)`.
 * - `new FixedMeanTest(m, { alpha })`: the cheap check for simulation, "does the sequence
 *   still contain m", updated in O(1) per score for scores from a small set of values.
 * - `sequentialStop(scores, rule)`: the number of scores after which a rule (a precision,
 *   or a paired decision with a margin) stops, for simulating the sequential rule from a
 *   pilot's scores (`bas plan`).
 */
import { CompensatedSum } from './compensated-sum.js';

/** Number of bets in the mixture. */
const GRID = 30;
/** The largest and smallest bet of the grid (geometric in between). */
const BET_MAX = 1.5;
const BET_MIN = 0.02;
/** A bet against mean m is at most TRUNCATE / m, so that 1 + b(x - m) >= 1 - TRUNCATE > 0. */
const TRUNCATE = 0.8;

/** The grid of bets, largest first. */
const BETS = Float64Array.from({ length: GRID }, (_, k) => BET_MAX * (BET_MIN / BET_MAX) ** (k / (GRID - 1)));
const LOG_WEIGHT = -Math.log(GRID);

/** The default error rate: 95% sequences. */
const DEFAULT_ALPHA = 0.05;

/** How far the bisections go: the ends are exact to this, and rounded outward. */
const TOLERANCE = 1e-9;

export interface SequenceOptions {
  /** The chance of ever excluding the true mean; 0.05 for 95% sequences. */
  alpha?: number;
}

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

function checkAlpha(alpha: number): number {
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must be in (0, 1), got ${alpha}`);
  return alpha;
}

function checkUnit(x: number): number {
  if (!(x >= 0 && x <= 1)) throw new RangeError(`a score must be in [0, 1], got ${x}`);
  return x;
}

/** The cap on the bets against m on one side: 0.8/m for "mean above m", 0.8/(1-m) below. */
function capFor(m: number, side: 1 | -1): number {
  return TRUNCATE / (side === 1 ? m : 1 - m);
}

const scratch = new Float64Array(GRID);

/** log of the mixture's average over per-bet log wealths in `logs` (length GRID). */
function logMixture(logs: Float64Array): number {
  let max = -Infinity;
  for (let k = 0; k < GRID; k++) if (logs[k]! > max) max = logs[k]!;
  let sum = 0;
  for (let k = 0; k < GRID; k++) sum += Math.exp(logs[k]! - max);
  return LOG_WEIGHT + max + Math.log(sum);
}

/**
 * log of the mixture wealth against mean m after the scores `values[j]` seen `counts[j]`
 * times (j < d). side 1 bets that the mean is above m, side -1 that it is below.
 */
function logWealth(values: Float64Array, counts: Float64Array, d: number, m: number, side: 1 | -1): number {
  const cap = capFor(m, side);
  for (let k = 0; k < GRID; k++) {
    const b = Math.min(BETS[k]!, cap) * side;
    let s = 0;
    for (let j = 0; j < d; j++) s += counts[j]! * Math.log1p(b * (values[j]! - m));
    scratch[k] = s;
  }
  return logMixture(scratch);
}

const slopes = new Float64Array(GRID);

/**
 * The same log wealth with its derivative in m (stored in `slope[0]`): d/dm of each bet's
 * Σ c log(1 + u), u = b·side·(x - m), is Σ c u'/(1 + u), with u' = -side·b for a bet under
 * the cap and the derivative of the capped bet's u otherwise; the mixture's derivative is
 * the wealth-weighted average of the bets'.
 */
function logWealthSlope(
  values: Float64Array,
  counts: Float64Array,
  d: number,
  m: number,
  side: 1 | -1,
  slope: Float64Array,
): number {
  const cap = capFor(m, side);
  for (let k = 0; k < GRID; k++) {
    const capped = BETS[k]! >= cap;
    const b = capped ? cap : BETS[k]!;
    let s = 0;
    let ds = 0;
    for (let j = 0; j < d; j++) {
      const v = values[j]!;
      const u = b * side * (v - m);
      let du: number;
      if (!capped) du = -side * b;
      else if (side === 1) du = (-TRUNCATE * v) / (m * m);
      else du = (TRUNCATE * (1 - v)) / ((1 - m) * (1 - m));
      s += counts[j]! * Math.log1p(u);
      ds += (counts[j]! * du) / (1 + u);
    }
    scratch[k] = s;
    slopes[k] = ds;
  }
  let max = -Infinity;
  for (let k = 0; k < GRID; k++) if (scratch[k]! > max) max = scratch[k]!;
  let sum = 0;
  let weighted = 0;
  for (let k = 0; k < GRID; k++) {
    const w = Math.exp(scratch[k]! - max);
    sum += w;
    weighted += w * slopes[k]!;
  }
  slope[0] = weighted / sum;
  return LOG_WEIGHT + max + Math.log(sum);
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

/**
 * "Does the sequence still contain m", kept up to date in O(1) per score: the power sums of
 * x - m bound every bet's wealth from above (log(1 + u) <= u - u^2/2 + u^3/3), and only when
 * that bound reaches the threshold is the exact mixture computed, from a table of
 * log(1 + b(x - m)) per distinct score and bet, the counts per score, and the best bet found
 * by hill-climbing (the log wealth is concave in the bet). Gives the same answers as
 * `ConfidenceSequence.contains(m)`; fast when the scores come from a few distinct values.
 */
export class FixedMeanTest {
  readonly m: number;
  private readonly threshold: number;
  private readonly index = new Map<number, number>();
  private readonly tables: Float64Array[] = [];
  private readonly counts: number[] = [];
  /** Scores pushed since the counts were last brought up to date. */
  private pending = new Float64Array(64);
  private pendingLength = 0;
  /** Per side (0: above m, 1: below m): the last capped bet index (bets differ from there on), the best bet last time, the largest bet. */
  private readonly firstAbove: number;
  private readonly firstBelow: number;
  private bestAbove: number;
  private bestBelow: number;
  private readonly topAbove: number;
  private readonly topBelow: number;
  /** Sums of (x - m), (x - m)^2 and (x - m)^3. */
  private s1 = 0;
  private s2 = 0;
  private s3 = 0;
  /** Whether the sequence leaves m out now, and which way: 'above' (the whole interval is above m), 'below', or null. */
  excluded: 'above' | 'below' | null = null;

  constructor(m: number, options: SequenceOptions = {}) {
    if (!(m >= 0 && m <= 1)) throw new RangeError(`m must be in [0, 1], got ${m}`);
    this.m = m;
    this.threshold = Math.log(2 / checkAlpha(options.alpha ?? DEFAULT_ALPHA));
    this.firstAbove = this.bestAbove = lastCapped(capFor(m, 1));
    this.firstBelow = this.bestBelow = lastCapped(capFor(m, -1));
    this.topAbove = Math.min(BET_MAX, capFor(m, 1));
    this.topBelow = Math.min(BET_MAX, capFor(m, -1));
  }

  /**
   * An upper bound on every bet's log wealth on one side: with a = Σy, y = ±(x - m), and
   * bets b <= B, b Σy - b^2 Σy^2/2 + b^3 Σy^3/3 <= b a - b^2 c with
   * c = Σy^2/2 - B max(Σy^3, 0)/3, at most a^2/4c when a > 0 and c > 0.
   */
  private bound(a: number, cube: number, top: number): number {
    if (a <= 0) return 0;
    const c = this.s2 / 2 - (top * Math.max(cube, 0)) / 3;
    return c > 0 ? (a * a) / (4 * c) : Infinity;
  }

  /** Folds the pending scores into the counts (adding a table for each new value). */
  private settle(): void {
    for (let i = 0; i < this.pendingLength; i++) {
      const x = this.pending[i]!;
      let j = this.index.get(x);
      if (j === undefined) {
        j = this.tables.length;
        const table = new Float64Array(2 * GRID);
        const capAbove = capFor(this.m, 1);
        const capBelow = capFor(this.m, -1);
        for (let k = 0; k < GRID; k++) {
          table[k] = Math.log1p(Math.min(BETS[k]!, capAbove) * (x - this.m));
          table[GRID + k] = Math.log1p(Math.min(BETS[k]!, capBelow) * (this.m - x));
        }
        this.tables.push(table);
        this.counts.push(0);
        this.index.set(x, j);
      }
      this.counts[j]! += 1;
    }
    this.pendingLength = 0;
  }

  /** log wealth of bet k on side s (0 above, 1 below), from the settled counts. */
  private logBet(s: number, k: number): number {
    let total = 0;
    const offset = s * GRID + k;
    for (let j = 0; j < this.tables.length; j++) total += this.counts[j]! * this.tables[j]![offset]!;
    return total;
  }

  /** Whether the mixture on side s (0 above, 1 below) reaches the threshold, from the best bet at `best`. */
  private exceeds(s: number, best: number, lowest: number): number {
    let k = best;
    let here = this.logBet(s, k);
    for (;;) {
      if (k > lowest) {
        const left = this.logBet(s, k - 1);
        if (left > here) {
          k--;
          here = left;
          continue;
        }
      }
      if (k + 1 < GRID) {
        const right = this.logBet(s, k + 1);
        if (right > here) {
          k++;
          here = right;
          continue;
        }
      }
      break;
    }
    // the average is at most the best bet's wealth
    if (here >= this.threshold) {
      for (let i = 0; i < GRID; i++) scratch[i] = this.logBet(s, Math.max(i, lowest));
      if (logMixture(scratch) >= this.threshold) return -(k + 1);
    }
    return k;
  }

  /** Adds a score; returns true while m is still inside the sequence. */
  push(x: number): boolean {
    checkUnit(x);
    if (this.pendingLength === this.pending.length) {
      const grown = new Float64Array(this.pending.length * 2);
      grown.set(this.pending);
      this.pending = grown;
    }
    this.pending[this.pendingLength++] = x;
    const y = x - this.m;
    const y2 = y * y;
    this.s1 += y;
    this.s2 += y2;
    this.s3 += y2 * y;
    this.excluded = null;
    if (this.bound(this.s1, this.s3, this.topAbove) >= this.threshold) {
      this.settle();
      const k = this.exceeds(0, this.bestAbove, this.firstAbove);
      if (k < 0) this.excluded = 'above';
      this.bestAbove = k < 0 ? -k - 1 : k;
    }
    if (this.excluded === null && this.bound(-this.s1, -this.s3, this.topBelow) >= this.threshold) {
      this.settle();
      const k = this.exceeds(1, this.bestBelow, this.firstBelow);
      if (k < 0) this.excluded = 'below';
      this.bestBelow = k < 0 ? -k - 1 : k;
    }
    return this.excluded === null;
  }
}

/** The last index of the grid whose bet is at least `cap` (so all bets up to it are capped to the same value). */
function lastCapped(cap: number): number {
  let k = 0;
  while (k + 1 < GRID && BETS[k + 1]! >= cap) k++;
  return k;
}

/** When a sequential rule stops. */
export type StopRule =
  /** One-sample: stop when the interval's half-width is at most `width`. */
  | { kind: 'precision'; width: number }
  /** Paired differences already mapped to [0, 1] by (a - b + 1) / 2: stop when the interval of a - b excludes 0 or lies within ±margin. */
  | { kind: 'decided'; margin: number };

/** What a rule gave on a stream: how many scores it took (the stream's length if it never stopped) and why. */
export interface StopOutcome {
  n: number;
  stopped: boolean;
  verdict: Verdict | null;
}

/**
 * Runs a rule over `scores` in order (scores in [0, 1]; for `decided`, paired differences
 * mapped by (a - b + 1) / 2) and says after how many it stops. For simulating the expected
 * tasks of the sequential rule, e.g. from a pilot's scores resampled.
 */
export function sequentialStop(scores: ArrayLike<number>, rule: StopRule, options: SequenceOptions = {}): StopOutcome {
  if (rule.kind === 'precision') {
    const cs = new ConfidenceSequence(options);
    for (let i = 0; i < scores.length; i++) {
      cs.push(scores[i]!);
      if (cs.interval().halfWidth <= rule.width) return { n: i + 1, stopped: true, verdict: null };
    }
    return { n: scores.length, stopped: false, verdict: null };
  }
  // a - b > 0 exactly when the [0, 1] mean is above 1/2; within ±margin when above (1 - margin)/2 and below (1 + margin)/2
  const zero = new FixedMeanTest(0.5, options);
  const margin = Math.max(0, rule.margin);
  const lowEdge = margin > 0 ? new FixedMeanTest((1 - margin) / 2, options) : null;
  const highEdge = margin > 0 ? new FixedMeanTest((1 + margin) / 2, options) : null;
  for (let i = 0; i < scores.length; i++) {
    const x = scores[i]!;
    zero.push(x);
    if (zero.excluded !== null)
      return { n: i + 1, stopped: true, verdict: zero.excluded === 'above' ? 'better' : 'worse' };
    if (lowEdge && highEdge) {
      lowEdge.push(x);
      highEdge.push(x);
      if (lowEdge.excluded === 'above' && highEdge.excluded === 'below')
        return { n: i + 1, stopped: true, verdict: 'equivalent' };
    }
  }
  return { n: scores.length, stopped: false, verdict: 'undecided' };
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
