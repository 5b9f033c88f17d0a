import { describe, expect, it } from 'vitest';
import { progressDisplay, progressLine, type ProgressState } from '../../src/engine/progress.js';
import type { RolloutRecord } from '../../src/runfile/record.js';
import type { RunInfo } from '../../src/runfile/run-info.js';
import { mean } from '../../src/summary/stats.js';

const state: ProgressState = {
  finished: 120,
  total: 400,
  errors: 2,
  retries: 3,
  meanReward: 0.9123,
  elapsedS: 12,
  rate: 10,
  limit: 8,
  max: 64,
};

/** A display writing lines (not a terminal) into `out`, its clock 6 s further on at every look. */
function lineDisplay(): { out: string[]; display: ReturnType<typeof progressDisplay> } {
  const out: string[] = [];
  const stream = { isTTY: false, write: (s: string) => out.push(s) } as unknown as NodeJS.WriteStream;
  let t = 0;
  return { out, display: progressDisplay({ stream, now: () => (t += 6000) }) };
}

describe('progressLine', () => {
  it('shows everything when there is room', () => {
    expect(progressLine(state, 200)).toBe(
      '120/400 done · 2 errors · 3 retries · mean reward 0.912 · 10/s · limit 8 of 64 · 12s elapsed · ETA 28s',
    );
  });

  it.each([
    [100, '120/400 done · 2 errors · mean reward 0.912 · 10/s · limit 8 of 64 · 12s elapsed · ETA 28s'],
    [79, '120/400 done · 2 errors · 10/s · limit 8 of 64 · 12s elapsed · ETA 28s'],
    [60, '120/400 done · 2 errors · 10/s · 12s elapsed · ETA 28s'],
    [50, '120/400 done · 2 errors · 12s elapsed · ETA 28s'],
    [40, '120/400 done · 2 errors · ETA 28s'],
    [30, '120/400 done · ETA 28s'],
    [10, '120/400 do'],
  ])('keeps the count and the ETA at width %i, dropping lesser parts first', (width, line) => {
    const text = progressLine(state, width);
    expect(text).toBe(line);
    expect(text.length).toBeLessThanOrEqual(width);
  });

  it('says "1 error" and "1 retry", and shows a limit at the ceiling plainly', () => {
    const text = progressLine({ ...state, errors: 1, retries: 1, limit: 64 }, 200);
    expect(text).toContain('1 error ·');
    expect(text).toContain('1 retry ·');
    expect(text).toContain('limit 64 ·');
  });
});

describe('progressDisplay', () => {
  it("follows runEval's events: errors, and the limit as it moves", () => {
    const { out, display } = lineDisplay();
    const info = {} as RunInfo;
    display.onEvent({ type: 'started', dir: 'd', info, total: 2, pending: 2, already: 0, concurrency: 16 });
    display.onEvent({ type: 'pace', limit: 4 });
    display.onEvent({ type: 'rollout', record: { error: { type: 'x', message: 'x' } } as RolloutRecord });
    display.onEvent({ type: 'rollout', record: { reward: 1, error: null } as RolloutRecord });
    expect(out.at(-1)).toMatch(
      /^bas: 2\/2 done · 1 error · 0 retries · mean reward 1\.000 · .* · limit 4 of 16 · .* elapsed · ETA 0s\n$/,
    );
  });

  it('counts the rollouts of earlier sessions of a resumed run', () => {
    const { out, display } = lineDisplay();
    display.onEvent({
      type: 'started',
      dir: 'd',
      info: {} as RunInfo,
      total: 10,
      pending: 1,
      already: 9,
      concurrency: 4,
    });
    display.onEvent({ type: 'rollout', record: { reward: 0.5, error: null } as RolloutRecord });
    expect(out.at(-1)).toMatch(/^bas: 10\/10 done · 0 errors/);
  });

  it('shows the mean reward the summary will show (one compensated sum for both)', () => {
    const { out, display } = lineDisplay();
    display.onEvent({
      type: 'started',
      dir: 'd',
      info: {} as RunInfo,
      total: 3,
      pending: 3,
      already: 0,
      concurrency: 4,
    });
    // 0.8625 / 3 = 0.2875 exactly; a plain running sum lands just below and rounds to 0.287.
    const rewards = [0.45, 0.0625, 0.35];
    for (const reward of rewards)
      display.onEvent({ type: 'rollout', record: { reward, error: null } as RolloutRecord });
    expect(mean(rewards)!.toFixed(3)).toBe('0.288');
    expect(out.at(-1)).toContain('mean reward 0.288 ·');
  });
});
