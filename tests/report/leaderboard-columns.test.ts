/** `bas leaderboard --columns` in every format, the compact LaTeX form, and groups ordered by their settings. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRun, type RunData } from '../../src/report/read.js';
import { buildLeaderboard, type Leaderboard } from '../../src/report/leaderboard.js';
import { renderLeaderboard } from '../../src/report/leaderboard-text.js';
import {
  renderLeaderboardCsv,
  renderLeaderboardLatex,
  renderLeaderboardMarkdown,
} from '../../src/report/leaderboard-export.js';
import { leaderboardPage } from '../../src/report/html/leaderboard-page.js';
import { writeRun } from './make-run.js';

let dir: string;
let runs: RunData[];
let lb: Leaderboard;
const COLUMNS = ['rank', 'run', 'reward', 'bas_correct', 'tier'] as const;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bas-columns-'));
  runs = [];
  // Given in the order 60, 12, 120, 24 rows: the groups must come out 12, 24, 60, 120.
  for (const rows of [60, 12, 120, 24])
    for (const [name, choose] of [
      ['oracle', () => 'oracle' as const],
      ['half', (i: number) => (i % 2 ? ('oracle' as const) : ('blanket' as const))],
    ] as const) {
      const d = join(dir, `${name}-${rows}`);
      writeRun(d, { n: 10, model: `m/${name}`, choose, config: { num_transactions: rows, fault_rate: 0.3, seed: 7 } });
      runs.push(await readRun(d, () => {}));
    }
  lb = buildLeaderboard(runs, { seed: 1, resamples: 200 });
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('settings groups', () => {
  it('are ordered by their settings, rows as numbers, not by the order runs were given', () => {
    expect(lb.groups.map((g) => g.task!.num_transactions)).toEqual([12, 24, 60, 120]);
  });
});

describe('--columns', () => {
  const reward = (r: Leaderboard['groups'][number]['runs'][number]) => r.measures.reward;

  it('text: one results table of those columns, in that order', () => {
    const text = renderLeaderboard(lb, [...COLUMNS]);
    const heads = text
      .split('\n')
      .find((l) => l.includes('bas_correct'))!
      .split('│')
      .map((c) => c.trim())
      .filter(Boolean);
    expect(heads).toEqual(['#', 'run', 'reward', 'bas_correct', 'tier']);
    expect(text).not.toContain('fault_audit');
    const best = lb.groups[0]!.runs[0]!;
    expect(text).toContain(`[${reward(best).ci95![0].toFixed(3)}, ${reward(best).ci95![1].toFixed(3)}]`);
  });

  it('Markdown and HTML: the results table has those columns', () => {
    const md = renderLeaderboardMarkdown(lb, [...COLUMNS]);
    expect(md).toContain('| # | run | reward | bas_correct | tier |');
    const html = leaderboardPage(lb, '', [...COLUMNS]);
    const firstTable = /<table[\s\S]*?<\/table>/.exec(html)![0];
    const heads = [...firstTable.matchAll(/<th(?:\s[^>]*)?>([\s\S]*?)<\/th>/g)].map((m) =>
      m[1]!.replace(/\u200b/g, ''),
    );
    expect(heads).toEqual(['#', 'run', 'reward', 'bas_correct', 'tier']);
  });

  it('CSV: the group, then each column’s fields at full precision', () => {
    const csv = renderLeaderboardCsv(lb, [...COLUMNS])
      .trim()
      .split('\n');
    expect(csv[0]).toBe(
      'group,rank,run,reward,reward_ci_low,reward_ci_high,bas_correct,bas_correct_ci_low,bas_correct_ci_high,tier',
    );
    const best = lb.groups[0]!.runs[0]!;
    const e = reward(best);
    expect(csv[1]).toBe(
      `1,1,${best.name},${e.mean},${e.ci95![0]},${e.ci95![1]},${best.measures.bas_correct.mean},${best.measures.bas_correct.ci95![0]},${best.measures.bas_correct.ci95![1]},${best.tier}`,
    );
  });

  // Issue 36: five columns came to about 277 pt against a 252 pt column, and the caption had
  // neither sampling nor version; the full table was a one-column `table` of 18 columns.
  it('LaTeX: compact for one column of a paper: shrunk to the column only when wider, booktabs, interval below the mean', () => {
    const tex = renderLeaderboardLatex(lb, [...COLUMNS]);
    expect(tex).toContain('\\resizebox{\\ifdim\\width>\\columnwidth\\columnwidth\\else\\width\\fi}{!}{%');
    expect(tex).toMatch(/\\caption\{[^\n]*Sampling: [^\n]*\. bas [^\n]*\. Ranked by/);
    expect(tex).toContain('\\begin{tabular}{rlrrr}');
    for (const rule of ['\\toprule', '\\midrule', '\\bottomrule']) expect(tex).toContain(rule);
    const half = lb.groups[0]!.runs.find((r) => r.name.includes('half'))!;
    const e = reward(half);
    expect(tex).toContain(
      `\\begin{tabular}[t]{@{}r@{}}${e.mean!.toFixed(3)}\\\\[-2pt]{\\scriptsize [${e.ci95![0].toFixed(3)}, ${e.ci95![1].toFixed(3)}]}\\end{tabular}`,
    );
    // Without --columns, the full table spans both columns of the page.
    const full = renderLeaderboardLatex(lb);
    expect(full).toContain('\\begin{table*}[t]');
    expect(full).toContain('\\end{table*}');
    expect(full).toContain('\\resizebox{\\textwidth}{!}{%');
  });
});
