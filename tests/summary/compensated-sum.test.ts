import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CompensatedSum } from '../../src/summary/compensated-sum.js';
import { Moments } from '../../src/summary/moments.js';
import { mean } from '../../src/summary/stats.js';

/** Neumaier's sum written out, as the three places that used to carry their own copy had it. */
function reference(xs: number[]): number {
  let s = 0;
  let c = 0;
  for (const x of xs) {
    const t = s + x;
    c += Math.abs(s) >= Math.abs(x) ? s - t + x : x - t + s;
    s = t;
  }
  return s + c;
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

  it('gives exactly the sum the written-out algorithm gives', () => {
    fc.assert(
      fc.property(values, (xs) => {
        const sum = new CompensatedSum();
        for (const x of xs) sum.add(x);
        expect(Object.is(sum.value, reference(xs))).toBe(true);
      }),
      { numRuns: 500 },
    );
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
