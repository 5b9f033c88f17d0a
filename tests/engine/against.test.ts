/**
 * `--against RUN --until decided [--margin M]`: a run takes RUN's tasks in index order and stops
 * as soon as the anytime-valid interval of the paired difference (this run minus RUN) excludes
 * 0 or lies within ±M. The built-in `share:P` policy is right exactly on the tasks whose hash is
 * below P, so every task's score, and so where the sequence decides, is worked out here apart
 * from the run, with no clock and whatever the concurrency.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runEval, type EvalConfig } from '../../src/index.js';
import { PairedConfidenceSequence, verdictOf } from '../../src/summary/confidence-sequence.js';
import { runPolicy, type PolicyName } from '../../src/task/policies.js';
import { generateTask } from '../../src/task/generate.js';
import { scoreReply } from '../../src/task/score.js';
import { tasksNeeded } from '../../src/summary/power.js';
import { tempDir } from '../support/cli.js';

const TASK = { num_transactions: 6, fault_rate: 0.25, seed: 7 };
const runJson = (dir: string): Record<string, any> => JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));

/** The reward `policy` gets on task `index`, worked out without running anything. */
function reward(policy: PolicyName, index: number): number {
  const t = generateTask(TASK, index);
  return scoreReply(runPolicy(policy, t.prompt), t.key, t.ledger).reward;
}

/** Where the paired sequence of a minus b first decides, over tasks 0..n-1, and how. */
function decidesAt(a: PolicyName, b: PolicyName, n: number, margin = 0): { tasks: number; verdict: string } {
  const cs = new PairedConfidenceSequence();
  for (let i = 0; i < n; i++) {
    cs.push(reward(a, i), reward(b, i));
    const s = cs.interval();
    const v = verdictOf(s.low, s.high, margin);
    if (v !== 'undecided') return { tasks: i + 1, verdict: v };
  }
  return { tasks: n, verdict: 'undecided' };
}

async function baseline(model: PolicyName, n: number, more: EvalConfig = {}): Promise<string> {
  const dir = join(tempDir(), 'base');
  await runEval({ model: `builtin:${model}`, n, task: TASK, output: dir, ...more });
  return dir;
}

describe('builtin:share:P', () => {
  it('is right (reward 1) on a share P of tasks, wrong (reward 0) elsewhere, the right tasks nested in P', () => {
    const n = 1000;
    const shares = ['0', '0.5', '0.8', '1'] as const;
    const by = new Map<string, number[]>(shares.map((p) => [p, []]));
    for (let i = 0; i < n; i++) {
      const t = generateTask(TASK, i);
      for (const p of shares) by.get(p)!.push(scoreReply(runPolicy(`share:${p}`, t.prompt), t.key, t.ledger).reward);
    }
    const [none, half, most, all] = shares.map((p) => by.get(p)!);
    expect(new Set([...half!, ...most!])).toEqual(new Set([0, 1]));
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    // Binomial(1000, p): 4 standard deviations are 0.063 at p = 0.5, 0.051 at 0.8.
    expect(Math.abs(mean(half!) - 0.5)).toBeLessThan(0.063);
    expect(Math.abs(mean(most!) - 0.8)).toBeLessThan(0.051);
    for (let i = 0; i < n; i++) if (half![i] === 1) expect(most![i]).toBe(1);
    expect(none!.every((x) => x === 0)).toBe(true);
    expect(all!.every((x) => x === 1)).toBe(true);
  });

  it('of another salt K is right on an independent set: its differences go both ways', () => {
    const n = 2000;
    const count = { both: 0, onlyA: 0, onlyB: 0 };
    for (let i = 0; i < n; i++) {
      const t = generateTask(TASK, i);
      const [a, b] = (['share:0.55:1', 'share:0.5'] as const).map(
        (p) => scoreReply(runPolicy(p, t.prompt), t.key, t.ledger).reward,
      );
      if (a === 1 && b === 1) count.both++;
      else if (a === 1) count.onlyA++;
      else if (b === 1) count.onlyB++;
    }
    // Independent: both right on 0.55 x 0.5 of the tasks, only A on 0.55 x 0.5, only B on
    // 0.45 x 0.5; 4 standard deviations of a binomial(2000, 0.275) share are 0.04.
    expect(Math.abs(count.both / n - 0.275)).toBeLessThan(0.04);
    expect(Math.abs(count.onlyA / n - 0.275)).toBeLessThan(0.04);
    expect(Math.abs(count.onlyB / n - 0.225)).toBeLessThan(0.04);
    // Of one salt, nested: share:0.5:1's right tasks are among share:0.55:1's.
    for (let i = 0; i < 200; i++) {
      const t = generateTask(TASK, i);
      const [hi, lo] = (['share:0.55:1', 'share:0.5:1'] as const).map(
        (p) => scoreReply(runPolicy(p, t.prompt), t.key, t.ledger).reward,
      );
      expect(hi).toBeGreaterThanOrEqual(lo!);
    }
  });

  it('refuses a share outside 0..1 and a salt outside 1..999', async () => {
    for (const bad of ['share:1.5', 'share:', 'share:-0.1', 'share:abc', 'share:0.5:0', 'share:0.5:1000', 'share:0.5:'])
      await expect(runEval({ model: `builtin:${bad}`, n: 1, output: join(tempDir(), 'x') })).rejects.toThrow(
        /unknown built-in model.*share:P/,
      );
  });
});

describe('--against RUN --until decided', () => {
  it('stops where a large difference is first decided, status decided, with the verdict, interval and fixed design', async () => {
    const base = await baseline('share:0.2', 300);
    const expected = decidesAt('share:0.8', 'share:0.2', 300);
    expect(expected.verdict).toBe('better');
    expect(expected.tasks).toBeLessThan(40);
    const dir = join(tempDir(), 'cand');
    const r = await runEval({
      model: 'builtin:share:0.8',
      against: base,
      until: 'decided',
      output: dir,
      concurrency: 8,
    });
    expect(r.outcome.kind).toBe('decided');
    const saved = runJson(dir);
    expect(saved.status).toBe('decided');
    expect(saved).toMatchObject({ n: 300, task: TASK, against: base, until: 'decided', margin: 0 });
    expect(saved.sequential).toMatchObject({
      rule: 'decided',
      anytime_valid: true,
      against: base,
      verdict: 'better',
      reached: true,
      tasks: expected.tasks,
      last_index: expected.tasks - 1,
    });
    expect(saved.sequential.low).toBeGreaterThan(0);
    // the fixed design is planned at the spread of the differences taken
    const diffs = Array.from({ length: expected.tasks }, (_, i) => reward('share:0.8', i) - reward('share:0.2', i));
    const m = diffs.reduce((a, b) => a + b, 0) / diffs.length;
    const variance = diffs.reduce((a, d) => a + (d - m) ** 2, 0) / (diffs.length - 1);
    // ... to detect the difference found (issue 36: not always 0.05, which needs far more tasks)
    const found = Number(Math.abs(m).toFixed(3));
    expect(found).toBeGreaterThan(0.3);
    expect(saved.sequential.fixed_design_difference).toBe(found);
    expect(saved.sequential.fixed_design_tasks).toBe(tasksNeeded(variance, found));
    expect(saved.sequential.fixed_design_tasks as number).toBeLessThan(tasksNeeded(variance, 0.05)!);
    // work past the stopping point is not run: at most a wave of rollouts beyond it
    expect(r.summary.counts.rollouts).toBeLessThanOrEqual(expected.tasks + 2 * 8);
    // a resume of a decided run has nothing more to run
    const again = await runEval({}, { resume: dir });
    expect(again.outcome.kind).toBe('decided');
    expect(again.summary.counts.rollouts).toBe(r.summary.counts.rollouts);
  });

  it('says worse when this run is the weaker', async () => {
    const base = await baseline('share:0.9', 200);
    const dir = join(tempDir(), 'cand');
    const r = await runEval({ model: 'builtin:share:0.1', against: base, until: 'decided', output: dir });
    expect(r.sequential).toMatchObject({ verdict: 'worse', tasks: decidesAt('share:0.1', 'share:0.9', 200).tasks });
    expect(r.sequential!.high).toBeLessThan(0);
  });

  it('equal policies: equivalent within a margin, else undecided at -n (status complete)', async () => {
    const base = await baseline('share:0.5', 200);
    const within = join(tempDir(), 'within');
    const r = await runEval({
      model: 'builtin:share:0.5',
      against: base,
      until: 'decided',
      margin: 0.1,
      output: within,
    });
    const expected = decidesAt('share:0.5', 'share:0.5', 200, 0.1);
    expect(expected.verdict).toBe('equivalent');
    expect(r.outcome.kind).toBe('decided');
    expect(runJson(within).sequential).toMatchObject({ verdict: 'equivalent', tasks: expected.tasks, margin: 0.1 });
    expect(runJson(within).sequential.fixed_design_difference).toBe(0.1);

    const open = join(tempDir(), 'open');
    const u = await runEval({ model: 'builtin:share:0.5', against: base, until: 'decided', n: 60, output: open });
    expect(u.outcome).toEqual({ kind: 'ok' });
    expect(runJson(open)).toMatchObject({
      status: 'complete',
      n: 60,
      sequential: { verdict: 'undecided', reached: false, tasks: 60, mean: 0 },
    });
  });

  it('a run interrupted before its verdict resumes to the same verdict at the same task', async () => {
    const base = await baseline('share:0.3', 300);
    const expected = decidesAt('share:0.6', 'share:0.3', 300);
    const dir = join(tempDir(), 'cand');
    const stop = new AbortController();
    let seen = 0;
    const first = await runEval(
      { model: 'builtin:share:0.6', against: base, until: 'decided', output: dir, concurrency: 2 },
      {
        signal: stop.signal,
        onEvent: (e) => {
          if (e.type === 'rollout' && ++seen === 5) stop.abort();
        },
      },
    );
    expect(first.outcome.kind).toBe('interrupted');
    expect(runJson(dir).status).toBe('interrupted');
    expect(expected.tasks).toBeGreaterThan(10);
    const r = await runEval({}, { resume: dir });
    expect(r.outcome.kind).toBe('decided');
    expect(runJson(dir).sequential).toMatchObject({ verdict: expected.verdict, tasks: expected.tasks });
  });

  it('refuses what cannot be compared task by task, naming why', async () => {
    const base = await baseline('share:0.5', 40);
    const out = () => join(tempDir(), 'x');
    const cases: Array<[EvalConfig, RegExp]> = [
      [
        { against: join(tempDir(), 'nothing'), until: 'decided' },
        /--against: .* is not a run folder \(it does not exist\)/,
      ],
      [{ against: base }, /needs --until decided/],
      [{ until: 'decided' }, /needs --against RUN/],
      [{ against: base, until: 'decided', task: { seed: 8 } }, /"task.seed" in runEval\(\) 8 differs from .*'s 7/],
      [{ against: base, until: 'decided', n: 41 }, /41 is more tasks than .* holds \(40\)/],
      [{ against: base, until: 'decided', precision: 0.1 }, /two stopping rules/],
      [{ against: base, until: 'decided', shard: '1/2' }, /does not take --shard/],
    ];
    for (const [config, message] of cases)
      await expect(runEval({ model: 'builtin:oracle', output: out(), ...config })).rejects.toThrow(message);
    // a shard, and a run whose tasks are not all recorded
    const shard = join(tempDir(), 'shard');
    await runEval({ model: 'builtin:oracle', n: 10, shard: '1/2', output: shard });
    await expect(runEval({ model: 'builtin:oracle', against: shard, until: 'decided', output: out() })).rejects.toThrow(
      /one shard of a run/,
    );
    const partial = join(tempDir(), 'partial');
    await runEval({ model: 'builtin:oracle', n: 100, precision: 0.2, output: partial, concurrency: 1 });
    const lines = readFileSync(join(partial, 'results.jsonl'), 'utf8').trim().split('\n');
    const held = new Set(lines.map((l) => JSON.parse(l).index as number));
    let kept = 0;
    while (held.has(kept)) kept++;
    expect(kept).toBeLessThan(100);
    const x = out();
    await expect(runEval({ model: 'builtin:oracle', against: partial, until: 'decided', output: x })).rejects.toThrow(
      new RegExp(`task ${kept} of .* has no record .* give -n ${kept}`),
    );
    expect(existsSync(x)).toBe(false);
    // ...while -n within what it holds runs
    const ok = await runEval({ model: 'builtin:oracle', against: partial, until: 'decided', n: kept, output: out() });
    expect(ok.sequential?.tasks).toBe(kept);
    // a file that is not a run
    const junk = join(tempDir(), 'junk');
    await runEval({ model: 'builtin:oracle', n: 2, output: junk });
    writeFileSync(join(junk, 'run.json'), '[]');
    await expect(runEval({ model: 'builtin:oracle', against: junk, until: 'decided', output: out() })).rejects.toThrow(
      /not a bas run file/,
    );
  });
});
