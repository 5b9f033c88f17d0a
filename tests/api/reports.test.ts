/**
 * The report calls of the public API (`compareRuns`, `leaderboard`, `readSweep`) give the
 * numbers and the text the commands give: the API's comparison is `bas compare --json`, its
 * tiers are those of `bas leaderboard --json` (and the ones the runs' known differences imply),
 * and every renderer returns what the command prints or writes, columns chosen included.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareRuns, ConfigError, leaderboard, readRunFolder, readSweep, runEval, runSweep } from '../../src/index.js';
import { bas, tempDir } from '../support/cli.js';
import { writeRun } from '../report/make-run.js';

let root: string;
const dirs = { A: '', B: '', C: '', D: '' };

beforeAll(() => {
  root = tempDir('bas-api-reports-');
  // A is right everywhere and B on all but one task; C states the key but claims no fault
  // (0.6 on every task), D likewise but for one task. A and B cannot be told apart, nor C and
  // D; every other pair differs on every task.
  for (const k of Object.keys(dirs) as Array<keyof typeof dirs>) dirs[k] = join(root, 'runs', k.toLowerCase());
  writeRun(dirs.A, { n: 40, model: 'a', choose: () => 'oracle' });
  writeRun(dirs.B, { n: 40, model: 'b', choose: (i) => (i === 0 ? 'raw-sums' : 'oracle') });
  writeRun(dirs.C, { n: 40, model: 'c', choose: () => 'silent' });
  writeRun(dirs.D, { n: 40, model: 'd', choose: (i) => (i === 1 ? 'raw-sums' : 'silent') });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const json = (text: string): unknown => JSON.parse(text);

describe('compareRuns', () => {
  it('gives the comparison bas compare --json prints, and its text', async () => {
    const api = await compareRuns([dirs.C, dirs.A], { seed: 3, resamples: 500 });
    const cli = await bas(['compare', dirs.C, dirs.A, '--json', '--seed', '3', '--resamples', '500']);
    expect(cli.code, cli.stderr).toBe(0);
    expect(json(JSON.stringify(api.data))).toEqual(json(cli.stdout));
    expect(api.json()).toBe(cli.stdout);
    // A − C: 1 on every task but none (oracle 1.0 against silent 0.6): +0.4 exactly, interval degenerate.
    const pair = api.data.pairings[0]!;
    expect(pair.shared_tasks).toBe(40);
    expect(pair.diff!.mean).toBeCloseTo(0.4, 12);
    expect(pair.verdict).toBe('B better');
    expect(api.text()).toBe((await bas(['compare', dirs.C, dirs.A, '--seed', '3', '--resamples', '500'])).stdout);
    expect(api.warnings).toEqual([]);
  });

  it('takes --columns as a list, for the text and the page', async () => {
    const columns = ['run', 'reward', 'vs_a'] as const;
    const api = await compareRuns([dirs.A, dirs.B], { columns: [...columns], resamples: 200 });
    const args = ['compare', dirs.A, dirs.B, '--columns', columns.join(','), '--resamples', '200'];
    expect(api.text()).toBe((await bas(args)).stdout);
    const page = join(root, 'compare.html');
    expect((await bas([...args, '--html', page])).code).toBe(0);
    expect(api.html()).toBe(readFileSync(page, 'utf8'));
  });

  it('refuses bad options and inputs naming the key and the call', async () => {
    await expect(compareRuns([dirs.A])).rejects.toThrow(/at least two run folders/);
    await expect(compareRuns([dirs.A, dirs.B], { seed: -1 })).rejects.toThrow(
      /^"seed" in compareRuns\(\) must be an integer from 0 to 4294967295/,
    );
    await expect(compareRuns([dirs.A, dirs.B], { columns: ['reward', 'nope' as 'run'] })).rejects.toThrow(
      /"columns" in compareRuns\(\) must be one of run, name/,
    );
    const unknown = compareRuns([dirs.A, dirs.B], { sed: 1 } as object);
    await expect(unknown).rejects.toBeInstanceOf(ConfigError);
    await expect(compareRuns([dirs.A, dirs.B], { sed: 1 } as object)).rejects.toThrow(/has no option "sed"/);
  });
});

describe('leaderboard', () => {
  it('gives the tiers the known differences imply, equal to bas leaderboard --json', async () => {
    const api = await leaderboard([join(root, 'runs')], { resamples: 200 });
    const tiers = api.data.groups[0]!.runs.map((r) => [r.model, r.tier]);
    expect(tiers).toEqual([
      ['a', 1],
      ['b', 1],
      ['c', 2],
      ['d', 2],
    ]);
    const cli = await bas(['leaderboard', join(root, 'runs'), '--json', '--resamples', '200']);
    expect(cli.code, cli.stderr).toBe(0);
    expect(json(api.json())).toEqual(json(cli.stdout));
    const cliTiers = (json(cli.stdout) as typeof api.data).groups[0]!.runs.map((r) => [r.model, r.tier]);
    expect(cliTiers).toEqual(tiers);
  });

  it('renders every format as the command prints or writes it, with the columns chosen', async () => {
    const columns = ['rank', 'tier', 'run', 'reward', 'bas_correct'] as const;
    const api = await leaderboard([join(root, 'runs')], { columns: [...columns], resamples: 200, by: 'reward' });
    const args = ['leaderboard', join(root, 'runs'), '--columns', columns.join(','), '--resamples', '200'];
    args.push('--by', 'reward');
    for (const [flag, render] of [
      ['--markdown', api.markdown],
      ['--csv', api.csv],
      ['--latex', api.latex],
    ] as const)
      expect(render(), flag).toBe((await bas([...args, flag])).stdout);
    const html = join(root, 'lb.html');
    const svg = join(root, 'lb.svg');
    const text = await bas([...args, '--html', html, '--svg', svg]);
    expect(text.stdout.startsWith(api.text())).toBe(true);
    expect(api.html()).toBe(readFileSync(html, 'utf8'));
    expect(api.svg()).toBe(readFileSync(svg, 'utf8'));
    expect(api.svg()).toMatch(
      /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/,
    );
    // The compact LaTeX: booktabs rules, shrunk to the column only when wider.
    expect(api.latex()).toContain('\\toprule');
    expect(api.latex()).toContain('\\ifdim\\width>\\columnwidth');
  });

  it('refuses a bad measure naming the key', async () => {
    await expect(leaderboard([join(root, 'runs')], { by: 'speed' as 'reward' })).rejects.toThrow(
      /^"by" in leaderboard\(\) must be one of reward_errors_as_zero/,
    );
    await expect(leaderboard([])).rejects.toThrow(/at least one run folder/);
  });
});

describe('readSweep', () => {
  it('reads a budget sweep back with the curves and figure bas sweep gives', async () => {
    const dir = join(root, 'sweep');
    const svg = join(root, 'sweep.svg');
    const args = ['sweep', '-m', 'builtin:oracle', '-m', 'builtin:silent', '-n', '4', '--num-transactions', '12'];
    const cli = await bas([...args, '--reasoning-effort', 'low,high', '--output', dir, '--json', '--no-progress']);
    expect(cli.code, cli.stderr).toBe(0);
    const api = await readSweep(dir);
    expect(api.data.axis).toBe('reasoning_effort');
    expect(json(api.json())).toEqual(json(cli.stdout));
    const means = api.data.points.map((p) => [p.model, p.reasoning_effort, p.measures.reward.mean]);
    expect(means).toEqual([
      ['builtin:oracle', 'low', 1],
      ['builtin:oracle', 'high', 1],
      ['builtin:silent', 'low', 0.6],
      ['builtin:silent', 'high', 0.6],
    ]);
    expect((await bas(['sweep', '--resume', dir, '--svg', svg, '--no-progress'])).code).toBe(0);
    expect(api.svg()).toBe(readFileSync(svg, 'utf8'));
  });
});

describe('runSweep', () => {
  it('runs a budget sweep from the TOML keys, as bas sweep does, and bas sweep --resume continues it', async () => {
    const dir = join(root, 'api-sweep');
    const events: string[] = [];
    const config = {
      models: ['builtin:oracle', 'builtin:raw-sums'],
      n: 4,
      task: { num_transactions: 12 },
      sampling: { max_tokens: [8000, 2000] },
      output: dir,
    };
    const r = await runSweep(config, {
      onEvent: (e) => e.type !== 'point-event' && events.push(`${e.type} ${e.index}`),
    });
    expect(r.outcome).toEqual({ kind: 'done', failed: [], cut_off: [] });
    expect(events).toEqual([0, 1, 2, 3].flatMap((i) => [`point-started ${i}`, `point-ended ${i}`]));
    const points = r.sweep!.data.points.map((p) => [p.model, p.max_tokens, p.measures.reward.mean]);
    expect(points).toEqual([
      ['builtin:oracle', 2000, 1],
      ['builtin:oracle', 8000, 1],
      ['builtin:raw-sums', 2000, expect.any(Number)],
      ['builtin:raw-sums', 8000, expect.any(Number)],
    ]);
    // The same sweep from the command line gives the same curves.
    const cliDir = join(root, 'cli-sweep');
    const args = ['sweep', '-m', 'builtin:oracle', '-m', 'builtin:raw-sums', '-n', '4', '--num-transactions', '12'];
    const cli = await bas([...args, '--max-tokens', '8000,2000', '--output', cliDir, '--json', '--no-progress']);
    expect(cli.code, cli.stderr).toBe(0);
    const measures = (x: { points: Array<{ measures: unknown }> }) => x.points.map((p) => p.measures);
    expect(measures(r.sweep!.data)).toEqual(measures(json(cli.stdout) as { points: Array<{ measures: unknown }> }));
    // sweep.json keeps what bas sweep --resume needs; resumed, every point has nothing left to do.
    const resumed = await bas(['sweep', '--resume', dir, '--json', '--no-progress']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(json(resumed.stdout)).toEqual(json(r.sweep!.json()));
    const again = await runSweep({}, { resume: dir });
    expect(again.outcome).toEqual({ kind: 'done', failed: [], cut_off: [] });
    await expect(runSweep({ models: ['m'] }, { resume: dir })).rejects.toThrow(/give \{\} as its config/);
  });

  it('refuses bad settings naming the key and the call, before any point runs', async () => {
    const output = join(root, 'bad-sweep');
    await expect(runSweep({ models: [] })).rejects.toThrow(/^"models" in runSweep\(\) must be a non-empty list/);
    await expect(runSweep({ models: ['builtin:oracle'], task: { num_transactions: [12, 1] }, output })).rejects.toThrow(
      /num-transactions|num_transactions/,
    );
    await expect(runSweep({ models: ['builtin:oracle'], nn: 3, output } as never)).rejects.toThrow(/"nn"/);
    await expect(runSweep({ models: ['builtin:oracle'], output })).rejects.toThrow(/needs the points of its axis/);
    // Every model is checked, by the plan, whichever place it has in the list.
    for (const models of [
      ['builtin:nope', 'builtin:oracle'],
      ['builtin:oracle', 'builtin:nope'],
    ])
      await expect(runSweep({ models, task: { num_transactions: [12, 24] }, output })).rejects.toThrow(
        /unknown built-in model "builtin:nope"/,
      );
    expect(existsSync(output)).toBe(false);
  });
});

describe("the API's summary: the consistency split and the noise split", () => {
  it('gives what bas report --json gives, and the built-in policies come out as designed', async () => {
    const task = { num_transactions: 12, seed: 7 };
    const dir = (m: string) => join(root, 'policies', m);
    const consistent: Record<string, number | null> = {};
    for (const m of ['oracle', 'raw-sums', 'silent']) {
      const r = await runEval({ model: `builtin:${m}`, n: 20, task, output: dir(m) });
      consistent[m] = r.summary.consistency.bas_consistent.mean;
    }
    // oracle and raw-sums state what their own faults imply; silent (right BAS, no fault) does not.
    expect(consistent).toEqual({ oracle: 1, 'raw-sums': 1, silent: 0 });

    // slips finds every fault and slips in the sums: every wrong BAS is the arithmetic's, and
    // with four rollouts per task the reward's variance splits into within and between tasks.
    const slips = await runEval({ model: 'builtin:slips', n: 40, rollouts: 4, task, output: dir('slips') });
    const c = slips.summary.consistency;
    expect(c.n).toBe(160);
    expect(c.bas_errors.audit + c.bas_errors.both).toBe(0);
    expect(c.bas_errors.arithmetic).toBe(Math.round(160 * (1 - c.bas_consistent.mean!)));
    const noise = slips.summary.noise!;
    expect(noise.rollouts_per_task).toBe(4);
    expect(noise.variance_of_mean).toBeCloseTo(noise.data_noise + noise.prediction_noise, 12);
    expect(noise.prediction_noise).toBeCloseTo(noise.within_variance / 160, 12);
    expect(noise.within_variance).toBeGreaterThan(0);

    const read = await readRunFolder(dir('slips'));
    const cli = await bas(['report', dir('slips'), '--json']);
    expect(cli.code, cli.stderr).toBe(0);
    const summary = (json(cli.stdout) as { summary: { consistency: unknown; noise: unknown } }).summary;
    expect(json(JSON.stringify(read.summary.consistency))).toEqual(summary.consistency);
    expect(json(JSON.stringify(read.summary.noise))).toEqual(summary.noise);
    expect(read.summary.consistency).toEqual(slips.summary.consistency);
  });
});
