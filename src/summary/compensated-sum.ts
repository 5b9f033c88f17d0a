/**
 * An exact running sum: the values added are kept as a short list of non-overlapping partial
 * sums whose total is exactly the sum of every value (Shewchuk's algorithm, as Python's
 * `math.fsum` does it), and `value` is that exact total rounded once, to the nearest number.
 * So the sum does not depend on the order of the values at all, to the last bit: a summary
 * built from a results file written in another order (a resume, a merge) prints the same
 * figures. A column of 0.6s averages to 0.6 rather than 0.5999999999999999. The partials are
 * few (one or two for rewards and counts), so an addition costs a handful of operations.
 *
 * The one implementation of it: the summary's means and sums of squares, the per-task sums,
 * and the progress line all add through here, so they agree to the bit. A sum that overflows
 * (a value near 1e308) keeps a plain sum instead, which is then Infinity or NaN anyway.
 */

/** 2^27 + 1: splits a double into two halves whose products are exact (Dekker). */
const SPLITTER = 134217729;
/** Above this, splitting overflows; below the other, products lose bits to underflow. */
const SPLIT_MAX = 2 ** 996;
const SPLIT_MIN = 2 ** -440;

export class CompensatedSum {
  private readonly partials: number[] = [];
  private plain = 0;
  private overflowed = false;

  /** Adds one value. */
  add(value: number): void {
    this.plain += value;
    if (this.overflowed) return;
    const p = this.partials;
    let x = value;
    let i = 0;
    for (let j = 0; j < p.length; j++) {
      let y = p[j]!;
      if (Math.abs(x) < Math.abs(y)) {
        const t = x;
        x = y;
        y = t;
      }
      const hi = x + y;
      const lo = y - (hi - x);
      if (lo !== 0) p[i++] = lo;
      x = hi;
    }
    p[i] = x;
    if (p.length !== i + 1) p.length = i + 1;
    if (!Number.isFinite(x)) this.overflowed = true;
  }

  /**
   * Adds the product `a * b` exactly, as the rounded product and its rounding error (Dekker's
   * product). Factors too large or too small to split exactly add the rounded product alone:
   * still a fixed function of the two factors, so the sum still does not depend on order.
   */
  addProduct(a: number, b: number): void {
    const product = a * b;
    this.add(product);
    const ma = Math.abs(a);
    const mb = Math.abs(b);
    if (!Number.isFinite(product) || !(ma < SPLIT_MAX && mb < SPLIT_MAX && ma > SPLIT_MIN && mb > SPLIT_MIN)) return;
    let c = SPLITTER * a;
    const ah = c - (c - a);
    const al = a - ah;
    c = SPLITTER * b;
    const bh = c - (c - b);
    const bl = b - bh;
    const error = ah * bh - product + ah * bl + al * bh + al * bl;
    if (error !== 0) this.add(error);
  }

  /** Partial sums whose exact total is the sum (a plain sum after an overflow). */
  terms(): readonly number[] {
    return this.overflowed ? [this.plain] : this.partials;
  }

  /** The sum of the values added so far, rounded once to the nearest double (0, never -0, for none or a zero sum). */
  get value(): number {
    if (this.overflowed) return this.plain;
    const p = this.partials;
    let n = p.length;
    if (n === 0) return 0;
    let hi = p[--n]!;
    let lo = 0;
    while (n > 0) {
      const x = hi;
      const y = p[--n]!;
      hi = x + y;
      lo = y - (hi - x);
      if (lo !== 0) break;
    }
    // Round half to even across the partials left: a tie that they tip goes their way.
    if (n > 0 && ((lo < 0 && p[n - 1]! < 0) || (lo > 0 && p[n - 1]! > 0))) {
      const y = lo * 2;
      const x = hi + y;
      if (y === x - hi) hi = x;
    }
    // A sum of negative zeros is zero: one sign for it, so a mean never depends on it.
    return hi === 0 ? 0 : hi;
  }
}
