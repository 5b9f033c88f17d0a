/**
 * Every text table of `eval` (the summary), `report` and `compare` fits 80 columns, with
 * realistic long model names, deep folders and errors of several types.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildComparison, renderComparison } from '../../src/report/compare.js';
import { fitTable, textWidth, wrapCell } from '../../src/report/fit-table.js';
import { readRun, type RunData } from '../../src/report/read.js';
import { buildRunReport, renderRunReport } from '../../src/report/run-report.js';
import { renderSummary } from '../../src/report/tables.js';
import { writeRun } from './make-run.js';

const LONG_MODEL = 'accounts/fireworks/models/llama-v3p1-405b-instruct-long-context-preview';
const LONG_DIR = 'runs/2026-12-02T16-00-00Z-accounts-fireworks-models-llama-v3p1-405b-instruct';

/** The lines of table rows and borders (box drawing), which must fit; prose may wrap in the terminal. */
function tableLines(text: string): string[] {
  return text.split('\n').filter((l) => /^[┌│├└]/.test(l));
}

let root: string;
const runs: RunData[] = [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'bas-widths-'));
  const errs = ['timeout', 'rate_limit', 'http_503_service_unavailable', 'context_length_exceeded'];
  for (const k of ['first', 'second']) {
    const dir = join(root, LONG_DIR, k);
    writeRun(dir, {
      n: 40,
      rollouts: 3,
      model: LONG_MODEL,
      choose: (i, r) => (i % 7 === r ? { error: errs[i % 4]! } : i % 2 ? 'oracle' : 'raw-sums'),
    });
    runs.push(await readRun(dir, () => {}));
  }
  const other = join(root, 'runs', 'oracle');
  writeRun(other, { n: 40, model: 'builtin:oracle', choose: () => 'oracle' });
  runs.push(await readRun(other, () => {}));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('text tables fit 80 columns', () => {
  it('eval and report: the summary, histogram and cost tables', () => {
    const text = renderRunReport(buildRunReport(runs[0]!, { in: 1234.5, out: 9999.99 }));
    expect(tableLines(text).length).toBeGreaterThan(20);
    for (const l of tableLines(text)) expect(textWidth(l), l).toBeLessThanOrEqual(80);
    const summary = renderSummary(runs[0]!.summary, { title: LONG_MODEL });
    for (const l of tableLines(summary)) expect(textWidth(l), l).toBeLessThanOrEqual(80);
  });

  it('compare: runs, means and the verdict table (115 columns before)', () => {
    const text = renderComparison(buildComparison(runs, 1, 200));
    expect(text).toContain('verdict');
    for (const l of tableLines(text)) expect(textWidth(l), l).toBeLessThanOrEqual(80);
    // The folders are shown in full, folded, not cut.
    const joined = tableLines(text)
      .map((l) => l.replace(/[│ ]/g, ''))
      .join('');
    expect(joined).toContain('llama-v3p1-405b-instruct');
  });

  it("compare: each run's task settings are shown beside its endpoint and sampling", () => {
    const text = renderComparison(buildComparison([runs[0]!, runs[2]!], 1, 200));
    const cells = tableLines(text).join('\n');
    expect(cells).toMatch(/│ tasks +│/);
    for (const part of ['12 rows', 'fault rate 0.3', 'seed 7']) expect(cells).toContain(part);
  });

  it('compare: a verdict stays whole on one line', () => {
    const text = renderComparison(buildComparison([runs[2]!, runs[2]!], 1, 200));
    expect(text).toMatch(/│ no difference shown at 95% │/);
    for (const l of tableLines(text)) expect(textWidth(l), l).toBeLessThanOrEqual(80);
  });
});

describe('fitTable', () => {
  it('leaves a table that fits alone', () => {
    const t = fitTable(['a', 'b'], [['1', '2']], { wrap: [1] });
    expect(t).toBe(fitTable(['a', 'b'], [['1', '2']]));
  });

  it('folds the wrap columns of a wide table, keeping every character', () => {
    const name = 'x'.repeat(70) + '/' + 'y'.repeat(50);
    const t = fitTable(['run', 'name', 'n'], [['A', name, '12345']], { wrap: [1] });
    expect(textWidth(t)).toBeLessThanOrEqual(80);
    expect(t.replace(/[^xy/]/g, '')).toBe(name);
  });

  it('breaks at a separator when one is near, else mid-word', () => {
    expect(wrapCell('abc/defgh', 6)).toBe('abc/\ndefgh');
    expect(wrapCell('abcdefghij', 4)).toBe('abcd\nefgh\nij');
    expect(wrapCell('two words here', 9)).toBe('two words\nhere');
  });

  it('never breaks a number: not at its point or comma, nor between its digits', () => {
    // Seen in bas compare and bas view: "$0. / 0622" and "seed 20260 / 826".
    expect(wrapCell('cost $0.0622', 10)).toBe('cost\n$0.0622');
    expect(wrapCell('seed 20260826, 24 rows', 10)).toBe('seed\n20260826,\n24 rows');
    expect(wrapCell('n 1,234,567', 9)).toBe('n\n1,234,567');
    // A number wider than the column is broken all the same: every character is kept.
    expect(wrapCell('12345678901', 4)).toBe('1234\n5678\n901');
  });
});

describe('cells from outside', () => {
  it('lose their control characters before a terminal sees them', () => {
    const t = fitTable(['run'], [['evil\u001b[2J\u0007name\u009b']]);
    expect(t).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(t).toContain('evil\\x07name');
  });
});
