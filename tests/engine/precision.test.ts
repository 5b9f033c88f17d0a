/**
 * `--precision`: a run stops once the anytime-valid interval of the mean reward is within ±W,
 * tasks entering the sequence in index order; a resume recomputes the sequence from the
 * records and continues under a smaller W. The built-in oracle scores 1 on every task, so
 * where the sequence stops is known by hand: n 1s have the interval [low, 1] with
 * low = 0.4201 at 10 and 0.7994 at 30 (tests/summary/confidence-sequence.test.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runEval, type EvalConfig } from '../../src/index.js';
import { ConfidenceSequence } from '../../src/summary/confidence-sequence.js';
import { TaskSequence } from '../../src/engine/sequential.js';
import { tempDir } from '../support/cli.js';

const runJson = (dir: string): Record<string, any> => JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));

/** The first n at which n 1s have a half-width of at most w. */
function onesNeeded(w: number): number {
  const cs = new ConfidenceSequence();
  for (let n = 1; ; n++) {
    cs.push(1);
    if (cs.interval().halfWidth <= w) return n;
  }
}

describe('TaskSequence', () => {
  it('takes tasks in index order only, once every rollout of each is in; errored rollouts count 0', () => {
    const seq = new TaskSequence([0, 1, 2, 3], 2, { kind: 'precision', width: 0.01 });
    seq.add(1, 0, 1);
    seq.add(1, 1, 1);
    seq.add(2, 0, 0.5);
    expect(seq.state().tasks).toBe(0); // task 0 is not in yet
    seq.add(0, 1, null);
    expect(seq.state().tasks).toBe(0); // task 0 has one rollout of two
    seq.add(0, 0, 1);
    const s = seq.state();
    expect(s.tasks).toBe(2); // tasks 0 (mean of 1 and an error: 0.5) and 1 (1); task 2 lacks a rollout
    expect(s.lastIndex).toBe(1);
    expect(s.interval.mean).toBe(0.75);
    expect(s.sd).toBeCloseTo(Math.SQRT1_2 / 2, 12);
  });
});

describe('--precision', () => {
  const oracle = (more: EvalConfig = {}): EvalConfig => ({
    model: 'builtin:oracle',
    task: { num_transactions: 6 },
    ...more,
  });

  it('stops where the interval is first within ±W, with status precision, and a resume with a smaller W continues', async () => {
    const dir = join(tempDir(), 'run');
    const first = await runEval(oracle({ n: 200, output: dir, precision: 0.1, concurrency: 4 }));
    const stopAt = onesNeeded(0.1);
    expect(stopAt).toBe(31);
    expect(first.outcome.kind).toBe('precision');
    expect(first.info.status).toBe('precision');
    const saved = runJson(dir);
    expect(saved.status).toBe('precision');
    expect(saved.precision).toBe(0.1);
    expect(saved.sequential).toMatchObject({
      rule: 'precision',
      width: 0.1,
      anytime_valid: true,
      tasks: stopAt,
      last_index: stopAt - 1,
      mean: 1,
      high: 1,
      reached: true,
    });
    expect(saved.sequential.half_width).toBeLessThanOrEqual(0.1);
    // rollouts that finished past the stopping task are kept (they were paid for); no more than a wave
    expect(first.summary.counts.rollouts).toBeGreaterThanOrEqual(stopAt);
    expect(first.summary.counts.rollouts).toBeLessThan(stopAt + 2 * 4 + 1);

    // the same W again: reached already, nothing runs
    const same = await runEval({}, { resume: dir });
    expect(same.outcome.kind).toBe('precision');
    expect(same.summary.counts.rollouts).toBe(first.summary.counts.rollouts);

    const further = await runEval({ precision: 0.05 }, { resume: dir });
    const next = onesNeeded(0.05);
    expect(further.outcome.kind).toBe('precision');
    expect(runJson(dir).sequential).toMatchObject({ width: 0.05, tasks: next, reached: true });
    expect(runJson(dir).precision).toBe(0.05);
  });

  it('runs every task when W is never reached, and records the interval anyway', async () => {
    const dir = join(tempDir(), 'run');
    const r = await runEval(oracle({ n: 12, output: dir, precision: 0.01 }));
    expect(r.outcome).toEqual({ kind: 'ok' });
    expect(runJson(dir)).toMatchObject({
      status: 'complete',
      sequential: { tasks: 12, reached: false, mean: 1, high: 1 },
    });
  });
});
