/**
 * `bas report` and `bas compare` as a user runs them (node bin/bas.js, on the dist/ built for the test run),
 * on run folders of real scored replies written to a temp dir.
 */
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bas } from '../support/cli.js';
import { SMALL_CONFIG, writeRun } from './make-run.js';

let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'bas-cli-report-'));
  writeRun(join(root, 'oracle'), { n: 20, model: 'builtin:oracle', choose: () => 'oracle' });
  writeRun(join(root, 'mixed'), {
    n: 20,
    model: 'builtin:mixed',
    choose: (i) => (i % 4 === 0 ? 'raw-sums' : i === 7 ? { error: 'rate_limit' } : 'oracle'),
  });
  writeRun(join(root, 'blanket'), { n: 20, model: 'builtin:blanket', choose: () => 'blanket' });
  writeRun(join(root, 'other'), {
    n: 20,
    model: 'builtin:oracle',
    config: { ...SMALL_CONFIG, seed: 99 },
    choose: () => 'oracle',
  });
  writeRun(join(root, 'multi'), {
    n: 5,
    rollouts: 4,
    model: 'builtin:mixed',
    choose: (i, r) => (r <= i % 4 ? 'raw-sums' : 'oracle'),
    runJson: { prices: { in: 1, out: 4 } },
  });
  writeRun(join(root, 'partial'), {
    n: 8,
    model: 'builtin:oracle',
    choose: () => 'oracle',
    status: 'interrupted',
    runJson: { n: 10 },
  });
  appendFileSync(join(root, 'partial', 'results.jsonl'), '{"index": 8, "rollout": 0, "reply": "<ans');
  cpSync(join(root, 'oracle'), join(root, 'oracle-copy'), { recursive: true });
  symlinkSync(join(root, 'oracle'), join(root, 'oracle-link'));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('bas report', () => {
  it('prints the tables of a run', async () => {
    const r = await bas(['report', join(root, 'mixed')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('builtin:mixed');
    expect(r.stdout).toContain('reward (errors as 0)');
    expect(r.stdout).toContain('rate_limit');
    expect(r.stdout).toContain('reward distribution');
    expect(r.stdout).toMatch(/errored\s*│\s*1/);
  });

  it('--json holds the summary, breakdowns and cost', async () => {
    const r = await bas(['report', join(root, 'multi'), '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.summary.counts).toMatchObject({ tasks: 5, rollouts: 20, max_rollouts: 4, completed: 20 });
    // task i has (i % 4) + 1 raw-sums rollouts out of 4, so bas_correct successes are 3,2,1,0,3.
    const p1 = j.summary.pass_at_k.find((p: { k: number }) => p.k === 1).value;
    expect(p1).toBeCloseTo((3 + 2 + 1 + 0 + 3) / 4 / 5, 12);
    expect(j.summary.pass_at_k.find((p: { k: number }) => p.k === 4).value).toBeCloseTo(4 / 5, 12);
    expect(j.cost.price_in_per_million).toBe(1);
    expect(j.cost.total_usd).toBeCloseTo((j.summary.tokens.prompt * 1 + j.summary.tokens.completion * 4) / 1e6, 12);
    expect(Object.keys(j.summary.codes)).toHaveLength(5);
    expect(j.summary.reward_histogram).toHaveLength(10);
  });

  it('flags override run.json prices', async () => {
    const j = JSON.parse(
      (await bas(['report', join(root, 'multi'), '--json', '--price-in', '0', '--price-out', '10'])).stdout,
    );
    expect(j.cost.input_usd).toBe(0);
    expect(j.cost.price_out_per_million).toBe(10);
  });

  it('reports a cut-off run, skipping its torn last line with a warning', async () => {
    const r = await bas(['report', join(root, 'partial')]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/warning: .*skipped line 9/);
    expect(r.stdout).toMatch(/interrupted/);
    expect(r.stdout).toMatch(/8 of 10 rollouts are recorded/);
  });

  it('writes the HTML page', async () => {
    const file = join(root, 'report.html');
    const r = await bas(['report', join(root, 'mixed'), '--html', file]);
    expect(r.code).toBe(0);
    const html = readFileSync(file, 'utf8');
    expect(html).toContain('<script type="application/json" id="bas-data">');
    expect(html).toContain('Accuracy per BAS label');
  });

  it.each([
    [['report', '/nonexistent/run'], /run folder \/nonexistent\/run does not exist/],
    [['report', 'RUN', '--price-in', 'cheap'], /--price-in must be a number from 0 to 1000000, got "cheap"/],
    [['report', 'RUN', '--price-out', '-1'], /--price-out must be a number from 0 to 1000000, got "-1"/],
    [['report', 'RUN', '--html', 'RUN'], /--html .* is a folder; give a file name/],
    [['compare', 'RUN', 'MIX', '--html', 'RUN'], /--html .* is a folder; give a file name/],
    [['compare', 'RUN'], /at least two run folders/],
    [['compare', 'RUN', 'MIX', '--resamples', '5'], /--resamples must be an integer from 100 to 1000000/],
    [['compare', 'RUN', 'MIX', '--seed', 'x'], /--seed must be/],
    [['compare', 'RUN', 'RUN'], /compare: .*oracle is given twice: give different run folders/],
    [['compare', 'RUN', 'RUN/'], /compare: .*oracle and .*oracle\/ are the same run/],
    [['compare', 'MIX', 'RUN', 'RUN/../oracle/results.jsonl'], /are the same run/],
    [['compare', 'RUN', 'LINK'], /are the same run/],
  ])('bad input %j: one line, exit 2, no stack', async (args, message) => {
    const path = (a: string) =>
      a
        .replace(/^RUN/, join(root, 'oracle'))
        .replace(/^MIX$/, join(root, 'mixed'))
        .replace(/^LINK$/, join(root, 'oracle-link'));
    const r = await bas(args.map(path));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('bas compare', () => {
  it('pairs runs on shared tasks and gives a verdict', async () => {
    const r = await bas(['compare', join(root, 'mixed'), join(root, 'oracle'), join(root, 'blanket'), '--json']);
    expect(r.code).toBe(0);
    const c = JSON.parse(r.stdout);
    expect(c.runs.map((x: { label: string; model: string }) => `${x.label}:${x.model}`)).toEqual([
      'A:builtin:mixed',
      'B:builtin:oracle',
      'C:builtin:blanket',
    ]);
    expect(c.runs[0]).toMatchObject({ tasks: 20, completed: 19, errors: 1 });
    const [b, s] = c.pairings;
    expect(b).toMatchObject({
      baseline: 'A',
      run: 'B',
      comparable: true,
      shared_tasks: 20,
      left_out: 1,
      verdict: 'B better',
    });
    expect(s.verdict).toBe('A better');
    expect(b.diff.mean).toBeGreaterThan(0);
    expect(b.diff.ci95[0]).toBeGreaterThan(0);
  });

  it('says "no difference shown" for identical runs, and is reproducible for a seed', async () => {
    const run = async () =>
      JSON.parse(
        (
          await bas([
            'compare',
            join(root, 'oracle'),
            join(root, 'mixed'),
            '--json',
            '--seed',
            '5',
            '--resamples',
            '2000',
          ])
        ).stdout,
      );
    expect(await run()).toEqual(await run());
    const same = JSON.parse((await bas(['compare', join(root, 'oracle'), join(root, 'oracle-copy'), '--json'])).stdout);
    expect(same.pairings[0].verdict).toBe('no difference shown at 95%');
  });

  it('lists runs on other task configurations with a note, no pairing', async () => {
    const r = await bas(['compare', join(root, 'oracle'), join(root, 'other')]);
    expect(r.code).toBe(0);
    // Notes wrap at 80 columns: read them with their line breaks as spaces.
    expect(r.stdout.replace(/\s+/g, ' ')).toMatch(/not comparable task by task/);
    expect(r.stdout).toMatch(/not comparable/);
  });

  it('prints tables and writes HTML', async () => {
    const file = join(root, 'compare.html');
    const r = await bas(['compare', join(root, 'mixed'), join(root, 'oracle'), '--html', file]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('paired differences against the baseline A');
    expect(r.stdout).toContain('B better');
    expect(readFileSync(file, 'utf8')).toContain('class="whisker"');
  });
});
