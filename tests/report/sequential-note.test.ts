/**
 * A run with a stopping rule (`--precision`, `--against RUN --until decided`) says so in every
 * report: a note with the anytime-valid interval, the tasks it stopped at, the cost beside them
 * and the fixed design's tasks (text, JSON, HTML, `bas compare`); `bas report --json` also
 * carries the record itself. A run its rule stopped is not reported as missing rollouts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runEval } from '../../src/index.js';
import { readRun, type RunData } from '../../src/report/read.js';
import { buildRunReport } from '../../src/report/run-report.js';
import { buildComparison, renderComparison } from '../../src/report/compare.js';
import { comparePage } from '../../src/report/html/compare-page.js';
import { tempDir } from '../support/cli.js';

const TASK = { num_transactions: 6, seed: 11 };
let base: string;
let decided: string;
let precision: string;

beforeAll(async () => {
  const root = tempDir();
  base = join(root, 'base');
  decided = join(root, 'decided');
  precision = join(root, 'precision');
  await runEval({ model: 'builtin:share:0.2', n: 200, task: TASK, output: base, price_in: 2, price_out: 8 });
  await runEval({
    model: 'builtin:share:0.9',
    against: base,
    until: 'decided',
    output: decided,
    price_in: 2,
    price_out: 8,
  });
  await runEval({ model: 'builtin:share:0.5', n: 400, task: TASK, precision: 0.15, output: precision });
});

const read = (dir: string): Promise<RunData> => readRun(dir, () => {});

describe('reports of a run with a stopping rule', () => {
  it('bas report: a note with the verdict, the tasks, the cost and the fixed design; JSON has the record', async () => {
    const r = buildRunReport(await read(decided));
    const saved = JSON.parse(readFileSync(join(decided, 'run.json'), 'utf8'));
    const q = saved.sequential;
    expect(r.sequential).toEqual(q);
    expect(r.run.status).toBe('decided');
    const note = r.notes.find((n) => /anytime-valid/i.test(n))!;
    expect(note).toMatch(/^This run stopped on a verdict against .*base, before its last task/);
    expect(note).toContain(`better: decided after ${q.tasks} tasks, $0.0000`);
    // planned for the difference found, not 0.05
    expect(q.fixed_design_difference).toBeCloseTo(Math.abs(q.mean), 3);
    expect(note).toContain(
      `a fixed design planned to detect a ${q.fixed_design_difference} difference with 80% power needed ${q.fixed_design_tasks.toLocaleString('en-US')}`,
    );
    // stopped by its rule: no "rollouts are missing" note
    expect(r.notes.some((n) => /are missing/.test(n))).toBe(false);
  });

  it('a run stopped by --precision gets a note, as other statuses do', async () => {
    const r = buildRunReport(await read(precision));
    expect(r.run.status).toBe('precision');
    const q = r.sequential!;
    expect(q.rule).toBe('precision');
    expect(r.notes[0]).toMatch(/^This run stopped when its interval reached --precision/);
    expect(r.notes[0]).toContain(`reached --precision 0.15 after ${q.tasks} tasks`);
  });

  it('bas compare shows each run’s note in text and HTML', async () => {
    const c = buildComparison([await read(base), await read(decided)], 1, 100);
    const text = renderComparison(c).replace(/\s+/g, ' ');
    expect(text).toContain('note (B): This run stopped on a verdict against');
    expect(text).toMatch(/better: decided after \d+ tasks/);
    expect(comparePage(c)).toMatch(/better: decided after \d+ tasks/);
  });

  it('a damaged sequential record is left out, not shown wrong', async () => {
    const file = join(precision, 'run.json');
    const run = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(file, JSON.stringify({ ...run, sequential: { ...run.sequential, low: 'x' } }));
    const r = buildRunReport(await read(precision));
    expect(r.sequential).toBeNull();
    expect(r.notes.some((n) => /anytime-valid/i.test(n))).toBe(false);
    writeFileSync(file, JSON.stringify(run));
  });
});
