/**
 * Issue 36 §10: a comparison that involves a run a stopping rule looked at takes its verdict
 * from the anytime-valid interval (the confidence sequence of the per-task differences, errors
 * as 0), not the fixed-n bootstrap, in `bas compare` (text, JSON, HTML) and the leaderboard,
 * and says why. The numbers are checked against the confidence sequence computed by hand.
 *
 * A answers every one of 150 tasks right (reward 1); B the same but 8 tasks unparseable
 * (reward 0): a difference of −0.053, whose bootstrap interval [−0.093, −0.020] excludes 0
 * while the confidence sequence's [−0.139, +0.017] does not.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildComparison, renderComparison } from '../../src/report/compare.js';
import { buildLeaderboard, vsBestText } from '../../src/report/leaderboard.js';
import { readRun, type RunData } from '../../src/report/read.js';
import { PairedConfidenceSequence } from '../../src/summary/confidence-sequence.js';
import { writeRun } from './make-run.js';
import { bas, tempDir } from '../support/cli.js';

const N = 150;
/** B's unparseable tasks: `bad` of them, spread over the run. */
const badTasks = (bad: number) => (i: number) => i % Math.floor(N / bad) === 3 && i < bad * Math.floor(N / bad);

/** run.json's `sequential` of a run `--until decided` stopped undecided at its last task. */
const decided = {
  rule: 'decided',
  width: null,
  alpha: 0.05,
  anytime_valid: true,
  method: 'betting-mixture',
  tasks: N,
  last_index: N - 1,
  mean: 0,
  low: -0.1,
  high: 0.1,
  half_width: 0.1,
  reached: true,
  fixed_design_tasks: null,
  against: 'a',
  margin: 0,
  verdict: 'undecided',
};

let root: string;
const read = (k: string): Promise<RunData> => readRun(join(root, k), () => {});

beforeAll(() => {
  root = tempDir('bas-compare-seq-');
  writeRun(join(root, 'a'), { n: N, model: 'm-a', choose: () => 'oracle' });
  const b = (bad: number) => (i: number) => (badTasks(bad)(i) ? { reply: 'no answer' } : 'oracle');
  // The same replies, with and without a rule that looked at them.
  writeRun(join(root, 'fixed'), { n: N, model: 'm-b', choose: b(8) });
  writeRun(join(root, 'seq'), {
    n: N,
    model: 'm-b',
    choose: b(8),
    status: 'decided',
    runJson: { sequential: decided },
  });
  // Run to its end under the rule, which looked at its interval and never stopped it.
  const looked = { ...decided, reached: false };
  writeRun(join(root, 'cont'), { n: N, model: 'm-d', choose: b(8), runJson: { sequential: looked } });
  writeRun(join(root, 'seq12'), {
    n: N,
    model: 'm-c',
    choose: b(12),
    status: 'decided',
    runJson: { sequential: decided },
  });
});

/** The confidence sequence of A − B by hand: B scores 0 on its bad tasks, 1 elsewhere; A 1 everywhere. */
function byHand(bad: number): { low: number; high: number } {
  const cs = new PairedConfidenceSequence();
  for (let i = 0; i < N; i++) cs.push(badTasks(bad)(i) ? 0 : 1, 1);
  return cs.interval();
}

describe('compare of a run a stopping rule looked at (issue 36 §10)', () => {
  it('without a rule, the bootstrap decides: A better', async () => {
    const p = buildComparison([await read('a'), await read('fixed')], 1, 2000).pairings[0]!;
    expect(p.diff!.ci95![1]).toBeLessThan(0);
    expect(p.verdict).toBe('A better');
    expect(p.verdict_from).toBe('bootstrap');
  });

  it('with a rule, the anytime-valid interval decides (here: no difference), and the text says why', async () => {
    const c = buildComparison([await read('a'), await read('seq')], 1, 2000);
    const p = c.pairings[0]!;
    const want = byHand(8);
    expect(p.anytime!.ci95[0]).toBeCloseTo(want.low, 9);
    expect(p.anytime!.ci95[1]).toBeCloseTo(want.high, 9);
    expect(p.anytime!.ci95[0]).toBeCloseTo(-0.1386, 3);
    expect(p.anytime!.ci95[1]).toBeCloseTo(0.0169, 3);
    // the bootstrap alone would have said "A better"
    expect(p.diff!.ci95![1]).toBeLessThan(0);
    expect(p.verdict).toBe('no difference shown at 95%');
    expect(p.verdict_from).toBe('anytime');
    expect(p.verdict_why).toBe('B was stopped by --until decided');
    const text = renderComparison(c).replace(/\s+/g, ' ');
    expect(text).toContain("note: the verdict of B − A is the anytime-valid interval's, not the bootstrap's");
    expect(text).toContain('95% (anytime-valid');
  });

  it('a larger difference is decided by the anytime-valid interval too', async () => {
    const p = buildComparison([await read('a'), await read('seq12')], 1, 2000).pairings[0]!;
    expect(byHand(12).high).toBeLessThan(0);
    expect(p.verdict).toBe('A better');
    expect(p.verdict_from).toBe('anytime');
  });

  it('the leaderboard: its verdict against the best, and its tiers', async () => {
    // A run stopped by its rule is not ranked (it did not finish); one its rule looked at to the end is.
    const lb = buildLeaderboard([await read('a'), await read('cont'), await read('fixed')], {
      seed: 1,
      resamples: 2000,
    });
    const runs = lb.groups[0]!.runs;
    const seq = runs.find((r) => r.dir.endsWith('cont'))!;
    const p = buildComparison([await read('a'), await read('cont')], 1, 2000).pairings[0]!;
    expect(p.verdict_why).toBe('B ran under --until decided, which looked at its interval as it went');
    const fixed = runs.find((r) => r.dir.endsWith('fixed'))!;
    expect(vsBestText(seq, lb.by).verdict).toBe('no difference shown (anytime-valid interval, errors as 0)');
    expect(vsBestText(fixed, lb.by).verdict).toBe('best better');
    // The t-test tells both apart from the best; only the run no rule looked at leaves its tier.
    const tierOf = async (k: string) => {
      const two = buildLeaderboard([await read('a'), await read(k)], { seed: 1, resamples: 2000 });
      return two.groups[0]!.runs[1]!.tier;
    };
    expect(await tierOf('cont')).toBe(1);
    expect(await tierOf('fixed')).toBe(2);
  });

  it('bas compare --json and --html carry the verdict and where it came from', async () => {
    const html = join(tempDir(), 'c.html');
    const r = await bas(['compare', join(root, 'a'), join(root, 'seq'), '--json', '--html', html]);
    const p = JSON.parse(r.stdout).pairings[0];
    expect(p).toMatchObject({ verdict: 'no difference shown at 95%', verdict_from: 'anytime' });
    expect(readFileSync(html, 'utf8')).toContain('the anytime-valid interval&#39;s, not the bootstrap&#39;s');
  });
});
