import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Moments, type TaskColumn } from '../../src/summary/moments.js';
import { estimate, type Estimate, type Scale } from '../../src/summary/stats.js';

const CHUNK_BITS = 4;

/** The running version of `estimate(xs, groups, scale)`: values pushed one by one, tasks kept in slots. */
function streamed(xs: number[], groups: number[] | undefined, scale: Scale): Estimate {
  const m = new Moments();
  const column: TaskColumn = { sums: [], counts: [] };
  const slotOf = new Map<number, number>();
  xs.forEach((x, i) => {
    m.push(x);
    if (!groups) return;
    let s = slotOf.get(groups[i]!);
    if (s === undefined) {
      slotOf.set(groups[i]!, (s = slotOf.size));
      if (s >>> CHUNK_BITS >= column.sums.length) {
        column.sums.push(new Float64Array(1 << CHUNK_BITS));
        column.counts.push(new Uint16Array(1 << CHUNK_BITS));
      }
    }
    const k = s & ((1 << CHUNK_BITS) - 1);
    column.sums[s >>> CHUNK_BITS]![k]! += x;
    if (++column.counts[s >>> CHUNK_BITS]![k]! === 2) m.repeats = true;
  });
  return m.estimate(scale, groups ? { column, slots: slotOf.size, chunkBits: CHUNK_BITS } : undefined);
}

function close(a: number | null, b: number | null): boolean {
  if (a === null || b === null) return a === b;
  return Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(a), Math.abs(b));
}

function same(a: Estimate, b: Estimate): boolean {
  return (
    a.n === b.n &&
    a.method === b.method &&
    close(a.mean, b.mean) &&
    close(a.stderr, b.stderr) &&
    (a.ci95 === null ? b.ci95 === null : b.ci95 !== null && close(a.ci95[0], b.ci95[0]) && close(a.ci95[1], b.ci95[1]))
  );
}

const value = fc.oneof(
  fc.constantFrom(0, 1),
  fc.integer({ min: 0, max: 20 }).map((k) => k / 20),
  fc.integer({ min: 0, max: 9 }),
  fc.double({ min: -2, max: 3, noNaN: true }),
);

describe('Moments', () => {
  it.each(['unit', 'count', 'real'] as const)('gives the interval estimate() gives, on %s columns', (scale) => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ x: value, task: fc.integer({ min: 0, max: 12 }) }), { maxLength: 60 }),
        fc.boolean(),
        (rows, grouped) => {
          const xs = rows.map((r) => r.x);
          const groups = grouped ? rows.map((r) => r.task) : undefined;
          const want = estimate(xs, groups, scale);
          const got = streamed(xs, groups, scale);
          expect(same(want, got), `${JSON.stringify(want)} != ${JSON.stringify(got)}`).toBe(true);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('averages a column of 0.6s to 0.6 exactly, as the compensated mean does', () => {
    const m = new Moments();
    for (let i = 0; i < 1000; i++) m.push(0.6);
    expect(m.mean()).toBe(0.6);
  });

  it('gives no interval and null fields for no values', () => {
    expect(new Moments().estimate('unit')).toEqual({ n: 0, mean: null, stderr: null, ci95: null, method: null });
  });
});
