/**
 * `bas leaderboard`: ranking within groups of comparable runs, paired verdicts against the
 * best, 80-column text, Markdown that cannot break its table, and the command on folders of
 * runs (run through the built CLI).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textWidth } from '../../src/report/fit-table.js';
import { buildLeaderboard } from '../../src/report/leaderboard.js';
import { renderLeaderboard } from '../../src/report/leaderboard-text.js';
import {
  latexText,
  markdownCell,
  renderLeaderboardCsv,
  renderLeaderboardLatex,
  renderLeaderboardMarkdown,
} from '../../src/report/leaderboard-export.js';
import { readRun, type RunData } from '../../src/report/read.js';
import { bas } from '../support/cli.js';
import { SMALL_CONFIG, writeRun } from './make-run.js';

const LONG = 'accounts/fireworks/models/llama-v3p1-405b-instruct-long-context-preview';
let root: string;
const read = (d: string) => readRun(join(root, d), () => {});

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'bas-leaderboard-'));
  writeRun(join(root, 'runs', 'oracle'), {
    n: 20,
    model: 'builtin:oracle',
    choose: () => 'oracle',
    runJson: { prices: { in: 1, out: 4 } },
  });
  writeRun(join(root, 'runs', 'mixed'), {
    n: 20,
    model: LONG,
    choose: (i) => (i % 4 === 0 ? 'raw-sums' : i === 7 ? { error: 'rate_limit' } : 'oracle'),
  });
  writeRun(join(root, 'runs', 'mixed-again'), {
    n: 20,
    model: LONG,
    choose: (i) => (i % 4 === 1 ? 'raw-sums' : 'oracle'),
  });
  writeRun(join(root, 'runs', 'blanket'), { n: 20, model: 'builtin:blanket', choose: () => 'blanket' });
  // Same model and configuration, but another task generator: never ranked with the rest.
  writeRun(join(root, 'runs', 'gen9'), {
    n: 20,
    model: 'builtin:oracle',
    choose: () => 'oracle',
    runJson: { generator: 9 },
  });
  // Same tasks, asked with an earlier prompt: not ranked with the rest either.
  writeRun(join(root, 'prompts', 'p1'), {
    n: 20,
    model: 'builtin:oracle',
    choose: () => 'oracle',
    runJson: { prompt_version: 1 },
  });
  // A sweep-like folder: one run per ledger length, one level further down.
  for (const rows of [16, 24]) {
    writeRun(join(root, 'sweep', `rows-${rows}`), {
      n: 6,
      model: 'builtin:raw-sums',
      config: { ...SMALL_CONFIG, num_transactions: rows },
      choose: () => 'raw-sums',
    });
  }
  // A run that has not written a line yet, inside a folder of runs.
  mkdirSync(join(root, 'nothing', 'deeper', 'still'), { recursive: true });
  symlinkSync(join(root, 'runs', 'oracle'), join(root, 'link'));
  mkdirSync(join(root, 'runs', 'empty'));
  writeFileSync(join(root, 'runs', 'empty', 'results.jsonl'), '');
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('buildLeaderboard', () => {
  let runs: RunData[];
  beforeAll(async () => {
    runs = [
      await read('runs/blanket'),
      await read('runs/mixed'),
      await read('runs/oracle'),
      await read('runs/gen9'),
      await read('runs/mixed-again'),
    ];
  });

  it('ranks best first within a group and puts another generator in a group of its own', () => {
    const lb = buildLeaderboard(runs, { seed: 1, resamples: 500 });
    expect(lb.groups).toHaveLength(2);
    const [main, other] = lb.groups;
    expect(main!.runs.map((r) => r.dir.split('/').pop())).toEqual(['oracle', 'mixed-again', 'mixed', 'blanket']);
    expect(main!.runs.map((r) => r.rank)).toEqual([1, 2, 3, 4]);
    expect(other!.runs.map((r) => r.dir.split('/').pop())).toEqual(['gen9']);
    expect(other!.title).toContain('task generator 9');
    for (const g of lb.groups) {
      const means = g.runs.map((r) => r.measures.reward.mean!);
      expect([...means].sort((a, b) => b - a)).toEqual(means);
    }
  });

  it('says where each wrong BAS comes from: blanket and raw-sums state what their faults imply', () => {
    const lb = buildLeaderboard(runs, { seed: 1, resamples: 200 });
    const byDir = new Map(lb.groups[0]!.runs.map((r) => [r.dir.split('/').pop(), r]));
    const blanket = byDir.get('blanket')!.consistency;
    expect(blanket.bas_consistent.mean).toBe(1);
    expect(blanket.bas_errors).toEqual({ audit: 20, arithmetic: 0, both: 0 });
    expect(byDir.get('oracle')!.consistency.bas_errors).toEqual({ audit: 0, arithmetic: 0, both: 0 });
    // mixed: five raw-sums replies (every fourth task), each wrong because of its audit.
    expect(byDir.get('mixed')!.consistency.bas_errors.audit).toBe(5);
    const text = renderLeaderboard(lb);
    expect(text).toMatch(/│ 4 │ +1\.000 │ +20 \/ 0 \/ 0 │/);
  });

  it("gives tiers: runs a paired test cannot tell from their tier's best share it (Holm over the pairs)", async () => {
    // A is right everywhere and B on all but one task; C states the key but claims nothing
    // (0.6 on every task), D likewise but for one task. A and B cannot be told apart, nor C
    // and D; every other pair differs on every task.
    const dirs = { A: 'tiers/a', B: 'tiers/b', C: 'tiers/c', D: 'tiers/d' };
    writeRun(join(root, dirs.A), { n: 40, model: 'a', choose: () => 'oracle' });
    writeRun(join(root, dirs.B), { n: 40, model: 'b', choose: (i) => (i === 0 ? 'raw-sums' : 'oracle') });
    writeRun(join(root, dirs.C), { n: 40, model: 'c', choose: () => 'silent' });
    writeRun(join(root, dirs.D), { n: 40, model: 'd', choose: (i) => (i === 1 ? 'raw-sums' : 'silent') });
    const lb = buildLeaderboard([await read(dirs.D), await read(dirs.B), await read(dirs.C), await read(dirs.A)], {
      seed: 1,
      resamples: 200,
    });
    expect(lb.tiers).toEqual({ test: 'paired t-test', correction: 'holm', alpha: 0.05 });
    const g = lb.groups[0]!;
    expect(g.runs.map((r) => [r.model, r.tier])).toEqual([
      ['a', 1],
      ['b', 1],
      ['c', 2],
      ['d', 2],
    ]);
    expect(renderLeaderboard(lb)).toMatch(/│ 3 │    2 │ c /);
  });

  it('puts runs asked with another prompt in a group of their own', async () => {
    const lb = buildLeaderboard([...runs, await read('prompts/p1')], { seed: 1, resamples: 200 });
    expect(lb.groups).toHaveLength(3);
    const p1 = lb.groups.find((g) => g.prompt_version === 1 && g.generator !== 9)!;
    expect(p1.runs.map((r) => r.dir.split('/').pop())).toEqual(['p1']);
    expect(p1.title).toContain('prompt 1');
  });

  it('pairs every run with the best on shared tasks, with a verdict', () => {
    const main = buildLeaderboard(runs, { seed: 1, resamples: 500 }).groups[0]!;
    expect(main.runs[0]!.vs_best).toBeNull();
    const blanket = main.runs[3]!;
    expect(blanket.vs_best).toMatchObject({
      baseline: '#1',
      run: '#4',
      comparable: true,
      shared_tasks: 20,
      verdict: '#1 better',
    });
    const mixed = main.runs[2]!;
    expect(mixed.vs_best!.left_out).toBe(1);
    expect(mixed.errored).toBe(1);
    expect(mixed.errors_by_type).toEqual({ rate_limit: 1 });
  });

  it('tells the two runs of one model apart by their folders', () => {
    const names = buildLeaderboard(runs, { seed: 1, resamples: 500 }).groups[0]!.runs.map((r) => r.name);
    expect(names).toContain(`${LONG} · mixed`);
    expect(names).toContain(`${LONG} · mixed-again`);
  });

  it('counts tokens and prices a run at its recorded prices', () => {
    const best = buildLeaderboard(runs, { seed: 1, resamples: 500 }).groups[0]!.runs[0]!;
    expect(best.tokens.total).toBeGreaterThan(0);
    expect(best.cost.total_usd).toBeCloseTo((best.tokens.prompt * 1 + best.tokens.completion * 4) / 1e6, 12);
  });

  it('ranks by another measure on request', () => {
    const lb = buildLeaderboard(runs, { by: 'fault_audit', seed: 1, resamples: 500 });
    expect(lb.by).toBe('fault_audit');
    const audits = lb.groups[0]!.runs.map((r) => r.measures.fault_audit.mean!);
    expect([...audits].sort((a, b) => b - a)).toEqual(audits);
  });

  it('text: every table fits 80 columns, with long model names', () => {
    const text = renderLeaderboard(buildLeaderboard(runs, { seed: 1, resamples: 500 }));
    const tables = text.split('\n').filter((l) => /^[┌│├└]/.test(l));
    expect(tables.length).toBeGreaterThan(20);
    for (const l of tables) expect(textWidth(l), l).toBeLessThanOrEqual(80);
    expect(text).toContain('best better');
    expect(text.replace(/\n\s*/g, ' ')).toContain('ranked apart, never together');
    for (const l of text.split('\n')) expect(textWidth(l), l).toBeLessThanOrEqual(80);
  });

  it('markdown: one row per run, and no name can break the table', () => {
    const md = renderLeaderboardMarkdown(buildLeaderboard(runs, { seed: 1, resamples: 500 }));
    // Per group, the results table and the provenance table: one row per run in each.
    const rows = md.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| #') && !l.startsWith('| -'));
    expect(rows).toHaveLength(10);
    const cols = (l: string) => l.replace(/\\\|/g, '').split('|').length;
    let head = 0;
    for (const l of md.split('\n')) {
      if (l.startsWith('| #')) head = cols(l);
      else if (l.startsWith('| ')) expect(cols(l)).toBe(head);
    }
    expect(markdownCell('a|b\nc\u001b[31m_d<x')).toBe('a\\|b c [31m_d&lt;x');
    // Plain text reads cleanly: no backslash escapes around intervals or names.
    expect(md).not.toMatch(/\\[[\]_*]/);
    expect(md).toContain('1.000 [1.000, 1.000]'.slice(0, 5));
  });
});

describe('bas leaderboard (CLI)', () => {
  it('reads a folder of run folders and a sweep folder, skipping a run with no lines yet', async () => {
    const r = await bas(['leaderboard', join(root, 'runs'), join(root, 'sweep'), '--json', '--resamples', '200']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/leaderboard: .*empty left out: .*holds no rollouts yet/);
    const lb = JSON.parse(r.stdout);
    // main group, generator 9, and one group per sweep point (16 and 24 rows).
    expect(lb.groups).toHaveLength(4);
    expect(lb.groups.map((g: { runs: unknown[] }) => g.runs.length)).toEqual([4, 1, 1, 1]);
  });

  it('prints text and Markdown, and writes HTML', async () => {
    const html = join(root, 'lb.html');
    const text = await bas(['leaderboard', join(root, 'runs'), '--html', html, '--resamples', '200']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('best first by reward with errors counted as 0');
    expect(readFileSync(html, 'utf8')).toContain('class="whisker"');
    const md = await bas(['leaderboard', join(root, 'runs'), '--markdown', '--resamples', '200']);
    expect(md.stdout).toMatch(/^### /);
  });

  it('--html over one of the runs it reads is refused, and the run kept', async () => {
    const target = join(root, 'runs', 'oracle', 'run.json');
    const before = readFileSync(target, 'utf8');
    const r = await bas(['leaderboard', join(root, 'runs'), '--html', target, '--resamples', '200']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--html .* is the input .*choose another file/);
    expect(readFileSync(target, 'utf8')).toBe(before);
  });

  it.each([
    [['leaderboard', 'ROOT/nope'], /leaderboard: .*nope does not exist/],
    [['leaderboard', 'ROOT/nothing'], /holds no run folder/],
    [['leaderboard', 'ROOT/runs', 'ROOT/runs/oracle'], /leaderboard: .*oracle is given twice|are the same run/],
    [['leaderboard', 'ROOT/runs/oracle', 'ROOT/link'], /are the same run/],
    [
      ['leaderboard', 'ROOT/runs', '--by', 'speed'],
      /--by must be one of reward_errors_as_zero, reward, bas_correct, fault_audit/,
    ],
    [['leaderboard', 'ROOT/runs', '--json', '--markdown'], /give one of --json, --markdown, --csv and --latex/],
    [['leaderboard', 'ROOT/runs', '--csv', '--latex'], /not --csv and --latex/],
    [['leaderboard', 'ROOT/runs/empty'], /holds no rollouts yet/],
  ])('bad input %j: one line, exit 2', async (args, message) => {
    const r = await bas(args.map((a) => a.replace('ROOT', root)));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
