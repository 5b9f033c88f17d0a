/**
 * Text assembled in one scratch buffer and made into a string once. A prompt is written on
 * every rollout; put together from template literals it made some twenty intermediate
 * strings per ledger row, all garbage at once, and the young collections that garbage brings
 * are what eventually doubles V8's young generation in a long run (docs/performance.md).
 * Here the only string made is the result.
 *
 * Only text whose every character fits in one byte (Latin-1) can be written this way;
 * `add` says false for anything else, and the caller builds that text the ordinary way.
 */

const ZERO = 48;

export class Latin1Text {
  private buf: Buffer = Buffer.allocUnsafe(16 * 1024);
  private length = 0;

  /** Starts a new text. */
  reset(): void {
    this.length = 0;
  }

  private room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.length + n));
    this.buf.copy(bigger, 0, 0, this.length);
    this.buf = bigger;
  }

  /**
   * Appends `s`, and after it the character coded `then` when given (a separator); false (and
   * the text unusable) when `s` holds a character past U+00FF.
   */
  add(s: string, then?: number): boolean {
    this.room(s.length + 1);
    const buf = this.buf;
    let at = this.length;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c > 0xff) return false;
      buf[at++] = c;
    }
    if (then !== undefined) buf[at++] = then;
    this.length = at;
    return true;
  }

  /** Appends one character given by its code (below 256). */
  char(code: number): void {
    this.room(1);
    this.buf[this.length++] = code;
  }

  /** Appends the digits of a whole number from 0 up to 2^53, as `String(n)` writes them. */
  whole(n: number): void {
    let digits = 1;
    for (let p = 10; p <= n; p *= 10) digits++;
    this.room(digits);
    let at = this.length + digits;
    this.length = at;
    do {
      const q = Math.floor(n / 10);
      this.buf[--at] = ZERO + (n - q * 10);
      n = q;
    } while (n > 0);
  }

  /** Appends cents as `formatCents` writes them: 123450 as "1234.50", -1230 as "-12.30". */
  cents(value: number): void {
    if (value < 0) this.char(45);
    const abs = Math.abs(value);
    const whole = Math.floor(abs / 100);
    const frac = abs - whole * 100;
    this.whole(whole);
    this.char(46);
    this.char(ZERO + Math.floor(frac / 10));
    this.char(ZERO + (frac % 10));
  }

  /** The text written since the last reset. */
  toString(): string {
    return this.buf.toString('latin1', 0, this.length);
  }
}
