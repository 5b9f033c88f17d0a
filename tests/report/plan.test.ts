/**
 * `bas plan` on run folders whose scores are known by construction (oracle: reward 1; an
 * errored rollout: 0), checked against the hand-worked cases of docs/statistics.md.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bas, tempDir } from '../support/cli.js';
import { writeRun } from './make-run.js';

/** A run whose rollout scores are `scores[index][rollout]` (1: oracle, 0: an errored rollout). */
function runOf(dir: string, model: string, scores: number[][], runJson?: Record<string, unknown>): string {
  writeRun(dir, {
    n: scores.length,
    rollouts: scores[0]!.length,
    model,
    choose: (i, r) => (scores[i]![r] === 1 ? 'oracle' : { error: 'malformed' }),
    runJson,
  });
  return dir;
}

describe('bas plan', () => {
  it('one pilot with two rollouts per task: 197 tasks for D = 0.1 (262 with one rollout), priced', async () => {
    const pilot = runOf(join(tempDir(), 'pilot'), 'm', [
      [0, 0],
      [1, 1],
      [0, 1],
    ]);
    const r = await bas(['plan', pilot, '--difference', '0.1', '--price-in', '1', '--price-out', '4', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const p = JSON.parse(r.stdout);
    expect(p.design).toBe('one-sample');
    expect(p.variance.between).toBeCloseTo(1 / 6, 12);
    expect(p.variance.within).toBeCloseTo(1 / 6, 12);
    expect(p.design_effect).toBeCloseTo(1.5, 12);
    expect(p.fixed).toMatchObject({ tasks: 197, rollouts_per_task: 2, rollouts: 394 });
    // Tokens per rollout over the three scored rollouts (make-run: prompt 1500 + index, completion 300).
    const perRollout = ((1501 + 1501 + 1502) / 3) * 1e-6 + 300 * 4e-6;
    expect(p.runs[0].usd_per_rollout).toBeCloseTo(perRollout, 12);
    expect(p.fixed.usd).toBeCloseTo(394 * perRollout, 9);
    const one = JSON.parse((await bas(['plan', pilot, '--difference', '0.1', '-r', '1', '--json'])).stdout);
    expect(one.fixed.tasks).toBe(262);
    expect(one.fixed.usd).toBeNull();
    const text = await bas(['plan', pilot, '--difference', '0.1']);
    expect(text.stdout).toMatch(/fixed design: tasks\s+│\s+197/);
    expect(text.stdout).toMatch(/design effect 1 \+ \(r − 1\)ρ\s+│\s+1\.50/);
  });

  it('two runs sharing tasks: paired, 32 tasks for D = 0.25, or the observed difference by default', async () => {
    const root = tempDir();
    const a = runOf(join(root, 'a'), 'ma', [[0], [1], [1], [0]]);
    const b = runOf(join(root, 'b'), 'mb', [[1], [1], [1], [0]]);
    const given = JSON.parse((await bas(['plan', a, b, '--difference', '0.25', '--json'])).stdout);
    expect(given.design).toBe('paired');
    expect(given.paired.shared_tasks).toBe(4);
    expect(given.paired.mean).toBe(0.25);
    expect(given.fixed.tasks).toBe(32);
    const observed = JSON.parse((await bas(['plan', a, b, '--json'])).stdout);
    expect(observed.difference).toBe(0.25);
    expect(observed.difference_from).toBe('observed');
    expect(observed.fixed.tasks).toBe(32);
    expect(observed.notes.join(' ')).toMatch(/the one the two runs show/);
  });

  it('simulates the sequential rule from the pilot: seeded, capped, priced', async () => {
    // 40 tasks, one rollout, half right: a difference of 0.2 from 0.5.
    const pilot = runOf(
      join(tempDir(), 'pilot'),
      'm',
      Array.from({ length: 40 }, (_, i) => [i % 2]),
    );
    const args = ['plan', pilot, '--difference', '0.2', '--simulations', '500', '--json'];
    const p = JSON.parse((await bas([...args, '--price-in', '1', '--price-out', '4'])).stdout);
    // σ² = 40 · 0.25 / 39; n = ⌈7.84888 · σ² / 0.04⌉ = 51.
    expect(p.fixed.tasks).toBe(51);
    const q = p.sequential;
    expect(q).toMatchObject({ simulations: 500, seed: 1, cap: 204 });
    expect(q.median_tasks).toBeGreaterThan(5);
    expect(q.median_tasks).toBeLessThanOrEqual(q.p90_tasks);
    expect(q.p90_tasks).toBeLessThanOrEqual(204);
    expect(q.undecided).toBeLessThan(0.1);
    expect(q.usd_median).toBeCloseTo(q.median_tasks * p.runs[0].usd_per_rollout, 12);
    // The same seed gives the same figures; --max-tasks caps them.
    const again = JSON.parse((await bas([...args, '--price-in', '1', '--price-out', '4'])).stdout);
    expect(again.sequential).toEqual(q);
    const capped = JSON.parse((await bas([...args, '--max-tasks', '10'])).stdout).sequential;
    expect(capped.cap).toBe(10);
    expect(capped.p90_tasks).toBeLessThanOrEqual(10);
    const text = (await bas(['plan', pilot, '--difference', '0.2', '--simulations', '500'])).stdout;
    expect(text).toMatch(/500 runs resampled from the pilot's scores \(seed 1\)/);
    expect(text).toMatch(/tasks: median/);
    for (const line of text.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
  });

  it('refuses what it cannot plan from, in one line (exit 2)', async () => {
    const root = tempDir();
    const a = runOf(join(root, 'a'), 'ma', [[0], [1], [1], [0]]);
    const same = runOf(join(root, 'same'), 'ms', [[0], [1], [1], [0]]);
    const cases: Array<[string[], RegExp]> = [
      [['plan', a], /needs --difference D/],
      [['plan', a, '--difference', '0'], /--difference must be/],
      [['plan', a, '--difference', '2'], /--difference must be/],
      [['plan', a, same], /show no difference .* give --difference/],
      [['plan', a, same, join(root, 'a')], /one pilot run, or two runs/],
      [['plan', a, a], /given twice/],
      [['plan', join(root, 'none'), '--difference', '0.1'], /none/],
    ];
    for (const [args, message] of cases) {
      const r = await bas(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });
});
