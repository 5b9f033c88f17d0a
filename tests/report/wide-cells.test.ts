/**
 * Terminal cells with East Asian wide characters, bidi controls and zero-width characters
 * (issue 16 §7): compare and leaderboard stay within 80 columns and their borders line up,
 * and nothing in a cell can reorder or hide what is shown.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildComparison, renderComparison } from '../../src/report/compare.js';
import { fitTable } from '../../src/report/fit-table.js';
import { buildLeaderboard } from '../../src/report/leaderboard.js';
import { renderLeaderboard } from '../../src/report/leaderboard-text.js';
import { readRun, type RunData } from '../../src/report/read.js';
import { displayWidth, fitWidth, terminalText } from '../../src/io/terminal-text.js';
import { writeRun } from './make-run.js';

const CJK_MODEL = '通义千问-大模型-专业版-长上下文-二零二六年十二月-预览';
const CJK_DIR = 'ランキング/通义千问-大模型-专业版-长上下文-二零二六年十二月';

/** Columns a terminal gives a line, counted here independently: CJK, kana, Hangul and fullwidth take two. */
function columns(line: string): number {
  let n = 0;
  for (const ch of line)
    n += /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u9fff\uac00-\ud7a3\uff00-\uff60]/.test(ch) ? 2 : 1;
  return n;
}

/** Each box-drawn table's lines: within 80 columns, and all of one table the same width (borders line up). */
function expectTablesFit(text: string): void {
  const tables = text
    .split(/\n(?=┌)/)
    .map((t) => t.split('\n').filter((l) => /^[┌│├└]/.test(l)))
    .filter((lines) => lines.length > 0);
  expect(tables.flat().length).toBeGreaterThan(5);
  for (const lines of tables) {
    for (const l of lines) expect(columns(l), l).toBeLessThanOrEqual(80);
    const widths = new Set(lines.map(columns));
    expect(widths.size, lines.join('\n')).toBe(1);
  }
}

let root: string;
const runs: RunData[] = [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'bas-wide-'));
  for (const [k, model] of [
    ['一', CJK_MODEL],
    ['二', `${CJK_MODEL}-第二`],
    ['三', 'evil\u202eledom-\u200bhidden\u2066x'],
  ] as const) {
    const dir = join(root, CJK_DIR, k);
    writeRun(dir, { n: 20, model, choose: (i) => (i % 3 ? 'oracle' : 'raw-sums') });
    runs.push(await readRun(dir, () => {}));
  }
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('wide characters', () => {
  it('compare stays within 80 columns with CJK model names and folders (110 before)', () => {
    const text = renderComparison(buildComparison(runs, 1, 200));
    expectTablesFit(text);
    // Folded, not cut: the whole model name is still there.
    const joined = text
      .split('\n')
      .map((l) => l.replace(/[│ ]/g, ''))
      .join('');
    expect(joined).toContain('二零二六年十二月');
  });

  it('leaderboard stays within 80 columns with CJK model names (114 before)', () => {
    expectTablesFit(renderLeaderboard(buildLeaderboard(runs, { seed: 1, resamples: 200 })));
  });

  it('fitTable folds a wide column by display width, never inside a character', () => {
    const name = '漢字'.repeat(40);
    const t = fitTable(['run', 'name'], [['a', name]], { wrap: [1] });
    expectTablesFit(t);
    expect(t.replace(/[^漢字]/g, '')).toBe(name);
  });

  it('displayWidth counts wide characters two and combining marks none', () => {
    expect(displayWidth('abc')).toBe(3);
    expect(displayWidth('東京')).toBe(4);
    expect(displayWidth('ｆｕｌｌ')).toBe(8);
    expect(displayWidth('e\u0301te\u0301')).toBe(3);
    expect(displayWidth('한국어')).toBe(6);
    expect(displayWidth('a\nlonger')).toBe(6);
  });

  it('fitWidth cuts by columns, never half a wide character', () => {
    expect(fitWidth('東京都庁', 5)).toBe('東京…');
    expect(fitWidth('東京', 4)).toBe('東京');
    expect(displayWidth(fitWidth('ab東京都庁', 6))).toBeLessThanOrEqual(6);
  });
});

describe('bidi and zero-width characters in cells', () => {
  it('are shown as escapes, so nothing is reordered or hidden', () => {
    expect(terminalText('evil\u202eledom')).toBe('evil\\u202eledom');
    expect(terminalText('a\u200bb\u2066c\u200fd\ufeffe\u00adf')).toBe('a\\u200bb\\u2066c\\u200fd\\ufeffe\\xadf');
    for (const text of [
      renderComparison(buildComparison(runs, 1, 200)),
      renderLeaderboard(buildLeaderboard(runs, { seed: 1, resamples: 200 })),
    ]) {
      expect(text).not.toMatch(/[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/);
      expect(text.replace(/[│ \n]/g, '')).toContain('evil\\u202eledom');
    }
  });
});
