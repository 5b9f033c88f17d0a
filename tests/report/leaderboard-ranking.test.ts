/**
 * Which runs a leaderboard ranks (finished, within their error budget), by a measure that
 * erroring cannot raise, and the formats to paste: CSV, LaTeX, Markdown, one number format
 * per figure, 80 columns at any number of runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textWidth } from '../../src/report/fit-table.js';
import { buildLeaderboard } from '../../src/report/leaderboard.js';
import {
  latexText,
  renderLeaderboardCsv,
  renderLeaderboardLatex,
  renderLeaderboardMarkdown,
} from '../../src/report/leaderboard-export.js';
import { renderLeaderboard } from '../../src/report/leaderboard-text.js';
import { readRun, type RunData } from '../../src/report/read.js';
import { bas } from '../support/cli.js';
import { writeRun } from './make-run.js';

let root: string;
const read = (d: string) => readRun(join(root, d), () => {});

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'bas-lb-rank-'));
  // Two runs alike but on tasks 0 and 1: one answers them badly, the other errors on them.
  writeRun(join(root, 'runs', 'answers'), {
    n: 20,
    model: 'm/answers',
    choose: (i) => (i < 2 ? 'blanket' : 'oracle'),
  });
  writeRun(join(root, 'runs', 'errors'), {
    n: 20,
    model: 'm/errors',
    choose: (i) => (i < 2 ? { error: 'timeout' } : 'oracle'),
  });
  writeRun(join(root, 'runs', 'cut'), { n: 20, model: 'm/cut', choose: () => 'oracle', status: 'interrupted' });
  writeRun(join(root, 'runs', 'flaky'), {
    n: 20,
    model: 'm/flaky',
    choose: (i) => (i % 3 === 0 ? { error: 'provider' } : 'oracle'),
  });
  writeRun(join(root, 'runs', 'warm'), {
    n: 20,
    model: 'm/warm, "quoted" & 100%_sure',
    choose: (i) => (i < 4 ? 'raw-sums' : 'oracle'),
    runJson: {
      sampling: { temperature: 0.7, max_tokens: 4096, reasoning_effort: null, extra: {} },
      provider: 'openrouter',
      base_url: 'https://openrouter.ai/api/v1',
    },
  });
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('leaderboard ranking', () => {
  let runs: RunData[];
  beforeAll(async () => {
    runs = [];
    for (const d of ['answers', 'errors', 'cut', 'flaky', 'warm']) runs.push(await read(`runs/${d}`));
  });

  it('ranks only finished runs within their error budget; lists the others with why', () => {
    const g = buildLeaderboard(runs, { seed: 1, resamples: 200 }).groups[0]!;
    expect(g.runs.map((r) => r.model)).not.toContain('m/cut');
    expect(g.runs.map((r) => r.model)).not.toContain('m/flaky');
    const why = Object.fromEntries(g.unranked.map((r) => [r.model, r.unrankable]));
    expect(why['m/cut']).toMatch(/status interrupted/);
    expect(why['m/flaky']).toMatch(/35\.0% of rollouts errored, over its budget of 10%/);
    expect(g.unranked.every((r) => r.rank === null && r.vs_best === null)).toBe(true);
    const text = renderLeaderboard(buildLeaderboard(runs, { seed: 1, resamples: 200 }));
    expect(text).toMatch(/not ranked/);
    expect(text).toContain('status interrupted: the run did');
    expect(text).toContain('not ranked: unfinished or over its error budget');
  });

  it('--include-incomplete ranks them too, marked', () => {
    const g = buildLeaderboard(runs, { seed: 1, resamples: 200, includeIncomplete: true }).groups[0]!;
    expect(g.unranked).toEqual([]);
    expect(g.runs).toHaveLength(5);
    const cut = g.runs.find((r) => r.model === 'm/cut')!;
    expect(cut.unrankable).toMatch(/interrupted/);
    const text = renderLeaderboard(buildLeaderboard(runs, { seed: 1, resamples: 200, includeIncomplete: true }));
    expect(text).toContain(`│ ${cut.rank}* │`);
    expect(text).toContain(`* #${cut.rank} is ranked only by --include-incomplete`);
  });

  it('erroring cannot raise a run: errors count 0 in the default measure', () => {
    const g = buildLeaderboard(runs, { seed: 1, resamples: 200 }).groups[0]!;
    const order = g.runs.map((r) => r.model);
    expect(order.indexOf('m/answers')).toBeLessThan(order.indexOf('m/errors'));
    // Over completed rollouts only, the run that errored on its hard tasks would come first.
    const byReward = buildLeaderboard(runs, { by: 'reward', seed: 1, resamples: 200 }).groups[0]!;
    const order2 = byReward.runs.map((r) => r.model);
    expect(order2.indexOf('m/errors')).toBeLessThan(order2.indexOf('m/answers'));
  });

  it('a pairing with a run sampled differently says so in its verdict', () => {
    const g = buildLeaderboard(runs, { seed: 1, resamples: 200 }).groups[0]!;
    const warm = g.runs.find((r) => r.model.startsWith('m/warm'))!;
    expect(warm.vs_best!.sampling_differs).toMatch(/temperature unknown|sampling unknown vs known/);
    expect(renderLeaderboard(buildLeaderboard(runs, { seed: 1, resamples: 200 }))).toMatch(/sampling\s+differs/);
  });

  it('CSV: one row per run, as many fields as the header, text quoted, formulas defused', () => {
    const csv = renderLeaderboardCsv(buildLeaderboard(runs, { seed: 1, resamples: 200 }));
    const lines = csv.trim().split('\n');
    expect(lines).toHaveLength(6);
    // A minimal CSV reader: fields split on commas outside quotes.
    const fields = (l: string) => {
      const out = [''];
      let quoted = false;
      for (const ch of l) {
        if (ch === '"') quoted = !quoted;
        else if (ch === ',' && !quoted) out.push('');
        else out[out.length - 1] += ch;
      }
      return out;
    };
    const n = fields(lines[0]!).length;
    for (const l of lines) expect(fields(l)).toHaveLength(n);
    expect(csv).toContain('"m/warm, ""quoted"" & 100%_sure"');
    expect(csv).toMatch(/,openrouter,/);
    expect(csv).toMatch(/,0\.7,4096,/);
  });

  it('LaTeX: booktabs rules, special characters escaped, unranked runs below a rule', () => {
    const tex = renderLeaderboardLatex(buildLeaderboard(runs, { seed: 1, resamples: 200 }));
    expect(tex).toContain('\\toprule');
    expect(tex).toContain('\\bottomrule');
    expect(tex.match(/\\midrule/g)).toHaveLength(2);
    expect(tex).toContain('m/warm, "quoted" \\& 100\\%\\_sure');
    expect(latexText('a_b #1 {x} ~ ^ \\')).toBe('a\\_b \\#1 \\{x\\} \\textasciitilde{} \\^{} \\textbackslash{}');
    // The caption says what the numbers were measured with: sampling (each run's where they
    // differ, unknown where run.json does not say) and the bas that made them.
    const caption = tex.split('\n').find((l) => l.startsWith('\\caption{'))!;
    expect(caption).toMatch(
      /Sampling: unknown \(.*answers.*\); temperature 0\.7 \$\\cdot\$ max tokens 4096 .*\(.*warm.*\)\. bas 0\.1\.0\. Ranked by/,
    );
  });

  it('one number format per figure: a mean and its interval have the same decimals', () => {
    const md = renderLeaderboardMarkdown(buildLeaderboard(runs, { seed: 1, resamples: 200 }));
    const figures = [...md.matchAll(/(\d+)\.(\d+) \[(\d+)\.(\d+), (\d+)\.(\d+)\]/g)];
    expect(figures.length).toBeGreaterThan(20);
    for (const f of figures) {
      expect(f[4]!.length, f[0]).toBe(f[2]!.length);
      expect(f[6]!.length, f[0]).toBe(f[2]!.length);
    }
    expect(md).not.toMatch(/1\.000 \[1\.00,/);
  });

  it('text: every line within 80 columns with ten runs and long names', async () => {
    const many: RunData[] = [];
    for (let i = 0; i < 10; i++) {
      writeRun(join(root, 'many', `run-${i}`), {
        n: 4,
        model: `accounts/fireworks/models/a-very-long-model-name-number-${i}-instruct`,
        choose: (k) => (k <= i % 4 ? 'oracle' : 'blanket'),
        status: i % 3 === 0 ? 'interrupted' : 'complete',
      });
      many.push(await read(`many/run-${i}`));
    }
    const text = renderLeaderboard(buildLeaderboard(many, { seed: 1, resamples: 100 }));
    for (const l of text.split('\n')) expect(textWidth(l), l).toBeLessThanOrEqual(80);
  });

  it('the CLI prints --csv and --latex', async () => {
    const csv = await bas(['leaderboard', join(root, 'runs'), '--csv', '--resamples', '100']);
    expect(csv.code).toBe(0);
    expect(csv.stdout.split('\n')[0]).toMatch(/^group,rank,ranked,why_not_ranked,run,/);
    const tex = await bas(['leaderboard', join(root, 'runs'), '--latex', '--include-incomplete', '--resamples', '100']);
    expect(tex.code).toBe(0);
    expect(tex.stdout).toContain('\\begin{tabular}');
    expect(tex.stdout).toContain('ranked only by --include-incomplete');
  });
});
