import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CompensatedSum } from '../../src/summary/compensated-sum.js';
import { Moments } from '../../src/summary/moments.js';
import { mean } from '../../src/summary/stats.js';

/**
 * The exact sum of doubles rounded once to the nearest double (ties to even), worked out with
 * BigInt: every double is a whole number of 2^-1074.
 */
function reference(xs: number[]): number {
  let total = 0n;
  const view = new DataView(new ArrayBuffer(8));
  for (const x of xs) {
    view.setFloat64(0, x);
    const bits = view.getBigUint64(0);
    const exp = Number((bits >> 52n) & 0x7ffn);
    const frac = bits & ((1n << 52n) - 1n);
    const mant = exp === 0 ? frac : frac | (1n << 52n);
    const units = mant << BigInt(Math.max(0, exp - 1));
    total += bits >> 63n ? -units : units;
  }
  if (total === 0n) return 0;
  const negative = total < 0n;
  let mag = negative ? -total : total;
  // Keep 53 significant bits (fewer for subnormals), rounding half to even.
  const length = mag.toString(2).length;
  let shift = Math.max(0, length - 53);
  if (shift > 0) {
    const rest = mag & ((1n << BigInt(shift)) - 1n);
    const half = 1n << BigInt(shift - 1);
    mag >>= BigInt(shift);
    if (rest > half || (rest === half && (mag & 1n) === 1n)) mag += 1n;
  }
  let value = Number(mag);
  // Scale by 2^(shift - 1074) in steps that cannot overflow or lose bits on the way.
  let e = shift - 1074;
  while (e < -1000) {
    value *= 2 ** -1000;
    e += 1000;
  }
  while (e > 1000) {
    value *= 2 ** 1000;
    e -= 1000;
  }
  value *= 2 ** e;
  return negative ? -value : value;
}

const values = fc.array(
  fc.oneof(
    fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e300, max: 1e300 }),
    fc.constantFrom(0, 1, 0.1, 0.6, 1e16, -1e16, 1e-16),
    fc.double({ min: 0, max: 1, noNaN: true }),
  ),
  { maxLength: 200 },
);

describe('CompensatedSum', () => {
  it('keeps the bits a plain sum loses', () => {
    const sum = new CompensatedSum();
    for (const x of [1e16, 1, -1e16]) sum.add(x);
    expect(sum.value).toBe(1);
    const tenths = new CompensatedSum();
    for (let i = 0; i < 10; i++) tenths.add(0.1);
    expect(tenths.value).toBe(1);
    expect(new CompensatedSum().value).toBe(0);
  });

  it('gives the exact sum rounded once, in any order', () => {
    fc.assert(
      fc.property(values, (xs) => {
        const want = reference(xs);
        const sum = new CompensatedSum();
        for (const x of xs) sum.add(x);
        const backwards = new CompensatedSum();
        for (const x of [...xs].reverse()) backwards.add(x);
        expect(sum.value === want && backwards.value === want, `${sum.value} ${backwards.value} ${want}`).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  const squarable = fc.double({ min: -1e6, max: 1e6, noNaN: true }).filter((x) => x === 0 || Math.abs(x) > 2 ** -440);

  it('adds products exactly', () => {
    fc.assert(
      // Exact down to 2^-440 in magnitude, as the class documents: below it a square and its error term
      // fall into the subnormal range, where neither this reference nor the sum can be exact.
      fc.property(fc.array(squarable, { maxLength: 50 }), (xs) => {
        const sum = new CompensatedSum();
        for (const x of xs) sum.addProduct(x, x);
        // Each square is exact as the sum of its two halves' products, which the reference adds exactly.
        const parts = xs.flatMap((x) => {
          const c = 134217729 * x;
          const h = c - (c - x);
          const l = x - h;
          return [h * h, 2 * h * l, l * l];
        });
        expect(sum.value).toBe(reference(parts));
      }),
      { numRuns: 300 },
    );
  });

  it('gives 0, not -0, for a sum of negative zeros (a counterexample fast-check found)', () => {
    expect(Object.is(mean([-0]), 0)).toBe(true);
    expect(Object.is(mean([-0, -0, 0]), 0)).toBe(true);
    const m = new Moments();
    m.push(-0);
    expect(Object.is(m.mean(), 0)).toBe(true);
  });

  it('makes mean() and the running Moments agree to the bit', () => {
    fc.assert(
      fc.property(values, (xs) => {
        const m = new Moments();
        for (const x of xs) m.push(x);
        const expected = xs.length === 0 ? null : reference(xs) / xs.length;
        expect(mean(xs)).toBe(expected);
        expect(m.mean()).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });
});
