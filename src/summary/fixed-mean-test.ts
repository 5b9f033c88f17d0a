/**
 * "Does the confidence sequence still contain m", for simulations (`bas plan`): the same
 * answers as `ConfidenceSequence.contains(m)` (confidence-sequence.ts), kept up to date in
 * O(1) per score for scores from a small set of values.
 */
import {
  BET_MAX,
  BETS,
  capFor,
  checkAlpha,
  checkUnit,
  DEFAULT_ALPHA,
  GRID,
  lastCapped,
  logMixture,
  type SequenceOptions,
} from './betting.js';

/** Room for the per-bet log wealths whose mixture is taken. */
const scratch = new Float64Array(GRID);

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
