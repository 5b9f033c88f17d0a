/**
 * A running sum with Neumaier's compensation: the low-order bits each addition loses are kept
 * in a second number and added back at the end. A column of 0.6s then averages to 0.6 rather
 * than 0.5999999999999999, and the total does not depend on the order of the values beyond
 * the last bit. The one implementation of it: the summary's means, its running moments and
 * the progress line all add through here, so they agree to the bit.
 */
export class CompensatedSum {
  private sum = 0;
  private carry = 0;

  /** Adds one value. */
  add(x: number): void {
    const t = this.sum + x;
    this.carry += Math.abs(this.sum) >= Math.abs(x) ? this.sum - t + x : x - t + this.sum;
    this.sum = t;
  }

  /** The sum of the values added so far (0 for none). */
  get value(): number {
    return this.sum + this.carry;
  }
}
