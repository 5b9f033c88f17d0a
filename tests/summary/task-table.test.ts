import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SummaryBuilder } from '../../src/summary/summary-builder.js';
import { TaskTable } from '../../src/summary/task-table.js';
import { done, failed } from '../report/fixtures.js';

describe('TaskTable', () => {
  it('gives back every sum and count exactly, whatever values and tasks come in whatever order', () => {
    // Whole numbers, fractions, huge and negative values, -0: in any order and tasks.
    const value = fc.oneof(
      fc.constantFrom(0, 1, 255, 256, 0.5, 0.1, 1e300, -0, -3, 2 ** 24 + 1),
      fc.integer({ min: 0, max: 300 }),
      fc.double({ min: -5, max: 5, noNaN: true }),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 3000 }), value), { maxLength: 400 }), (adds) => {
        const table = new TaskTable(1);
        const sums = new Map<number, number[]>();
        for (const [task, x] of adds) {
          table.add(0, table.rollout(task), x);
          sums.set(task, [...(sums.get(task) ?? []), x]);
        }
        for (const t of table.tasks(0)) {
          const xs = sums.get(t.index)!;
          expect(t.rollouts).toBe(xs.length);
          // One value: kept as it is (even -0); more: the exact sum rounded once, as before.
          if (xs.length === 1) expect(Object.is(t.sum, xs[0]! + 0) || Object.is(t.sum, xs[0])).toBe(true);
          else expect(t.sum).toBe(exactSum(xs));
        }
        expect(table.size).toBe(sums.size);
      }),
      { seed: 28, numRuns: 200 },
    );
  });

  it('keeps counts past 255', () => {
    const table = new TaskTable(1);
    for (let i = 0; i < 1000; i++) table.add(0, table.rollout(7), 1);
    const [t] = [...table.tasks(0)];
    expect(t).toMatchObject({ index: 7, rollouts: 1000, sum: 1000 });
    expect(table.maxRollouts).toBe(1000);
  });
});

/** The exact sum of doubles rounded once: each is a whole multiple of 2^-1074, so BigInts over 2^-1100 add exactly. */
function exactSum(xs: number[]): number {
  const SHIFT = 1100n;
  let total = 0n;
  for (const x of xs) total += toScaled(x, SHIFT);
  return fromScaled(total, SHIFT);
}

function toScaled(x: number, shift: bigint): bigint {
  if (x === 0) return 0n;
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, x);
  const bits = buf.getBigUint64(0);
  const sign = bits >> 63n ? -1n : 1n;
  const exp = Number((bits >> 52n) & 0x7ffn);
  const frac = bits & ((1n << 52n) - 1n);
  const mant = exp === 0 ? frac : frac | (1n << 52n);
  const e = BigInt((exp === 0 ? 1 : exp) - 1075);
  return sign * (e + shift >= 0n ? mant << (e + shift) : mant >> -(e + shift));
}

/** v / 2^shift rounded once: v·5^shift / 10^shift is an exact decimal, and Number() rounds a decimal correctly. */
function fromScaled(v: bigint, shift: bigint): number {
  const neg = v < 0n;
  const s = ((neg ? -v : v) * 5n ** shift).toString();
  const point = s.length - Number(shift);
  const text = point > 0 ? `${s.slice(0, point)}.${s.slice(point)}` : `0.${'0'.repeat(-point)}${s}`;
  return neg ? -Number(text) : Number(text);
}

describe('SummaryBuilder oneRolloutPerTask', () => {
  const records = [
    done(0, 0, { bas: 1, audit: 1, codes: { 0: [2, 0, 0], 1: [1, 0, 0] }, latency: 1000 }),
    done(3, 0, { bas: 0, audit: 1, codes: { 1: [1, 1, 1] }, latency: 2000 }),
    failed(1, 0, 'timeout'),
    done(2, 0, { bas: 0, audit: 0.5, codes: { 3: [1, 0, 1] }, latency: 4000 }),
  ];

  it('gives the very same summary and per-task means as the full table', () => {
    const full = new SummaryBuilder();
    const lean = new SummaryBuilder({ oneRolloutPerTask: true });
    for (const r of records) {
      full.add(r);
      lean.add(r);
    }
    expect(JSON.stringify(lean.result())).toBe(JSON.stringify(full.result()));
    expect(lean.perTask()).toEqual(full.perTask());
  });

  it('refuses a second rollout of a task, rather than give figures without its sums', () => {
    const lean = new SummaryBuilder({ oneRolloutPerTask: true });
    lean.add(records[0]!);
    expect(() => lean.add(done(0, 1, { bas: 1, audit: 1 }))).toThrow(/second rollout of task 0/);
  });
});
