import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Moments } from '../../src/summary/moments.js';
import { TaskTable } from '../../src/summary/task-table.js';
import { estimate, type Estimate, type Scale } from '../../src/summary/stats.js';

/** The running version of `estimate(xs, groups, scale)`: values pushed one by one, tasks kept in a TaskTable. */
function streamed(xs: number[], groups: number[] | undefined, scale: Scale): Estimate {
  const m = new Moments();
  const tasks = new TaskTable(1);
  xs.forEach((x, i) => {
    m.push(x);
    if (groups && tasks.add(0, tasks.rollout(groups[i]!), x)) m.repeats = true;
  });
  return m.estimate(scale, groups ? { column: tasks.columns[0]!, slots: tasks.size } : undefined);
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

  it('gives the same figures to the bit whatever order the values come in, per task too', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ x: value, task: fc.integer({ min: 0, max: 12 }) }), { minLength: 2, maxLength: 60 }),
        fc.integer(),
        (rows, seed) => {
          const shuffled = [...rows];
          // A seeded Fisher-Yates shuffle, so a failure replays.
          let r = seed;
          for (let i = shuffled.length - 1; i > 0; i--) {
            r = (Math.imul(r, 1103515245) + 12345) | 0;
            const j = (r >>> 1) % (i + 1);
            [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
          }
          const one = (rs: typeof rows) =>
            JSON.stringify([
              streamed(
                rs.map((x) => x.x),
                undefined,
                'real',
              ),
              streamed(
                rs.map((x) => x.x),
                rs.map((x) => x.task),
                'real',
              ),
            ]);
          expect(one(shuffled)).toBe(one(rows));
        },
      ),
      { numRuns: 400 },
    );
  });
});
