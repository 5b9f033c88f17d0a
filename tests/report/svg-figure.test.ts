/**
 * `--svg FILE` (src/report/html/figure.ts): standalone SVG documents a paper can take. Checked
 * as XML by a small well-formedness walk (no parser dependency), for what SVG-to-PDF tools
 * need (namespace, viewBox, no script or outside reference, generic fonts), for reading at a
 * two-column paper's column width (252 pt: the text at least 10 pt there, one key for the
 * figure), for coinciding curves kept visible, and, where Debian's chromium is present, loaded
 * in a browser as an SVG document (no parser error, every curve drawn).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import { readRun, type RunData } from '../../src/report/read.js';
import { buildLeaderboard } from '../../src/report/leaderboard.js';
import { buildSweep } from '../../src/report/sweep.js';
import { leaderboardSvg, sweepSvg } from '../../src/report/html/figure.js';
import { samplingShort } from '../../src/report/provenance.js';
import { writeRun } from './make-run.js';

const CHROMIUM = '/usr/bin/chromium';

/** Throws unless `xml` is well-formed: one root, tags nested and closed, attributes quoted, entities known. */
function checkWellFormed(xml: string): void {
  const body = xml.replace(/^<\?xml[^?]*\?>\s*/, '');
  const stack: string[] = [];
  let roots = 0;
  const re = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>|([^<]+)|(<)/g;
  for (let m = re.exec(body); m; m = re.exec(body)) {
    if (m[6]) throw new Error(`a stray '<' at ${m.index}: ${body.slice(m.index, m.index + 40)}`);
    const text = m[5] ?? m[3] ?? '';
    for (const amp of text.matchAll(/&[^;\s]*;?/g))
      if (!/^&(amp|lt|gt|quot|#39|#\d+);$/.test(amp[0])) throw new Error(`unknown entity ${amp[0]}`);
    if (m[5] !== undefined) {
      if (stack.length === 0 && m[5].trim()) throw new Error('text outside the root');
      continue;
    }
    if (m[1]) {
      if (stack.pop() !== m[2]) throw new Error(`</${m[2]}> closes another element`);
    } else if (!m[4]) {
      if (stack.length === 0) roots++;
      stack.push(m[2]!);
    } else if (stack.length === 0) roots++;
  }
  if (stack.length) throw new Error(`unclosed: ${stack.join(' > ')}`);
  if (roots !== 1) throw new Error(`${roots} root elements`);
}

let dir: string;
let runs: RunData[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bas-svg-'));
  // Two models that both score 1.0 at every point (their curves coincide), one that does not,
  // and a model name that needs escaping.
  const specs = [
    ['builtin:oracle', () => 'oracle' as const],
    ['a <b>&amp; "c"</b>', () => 'oracle' as const],
    ['builtin:blanket', (i: number) => (i % 2 ? ('oracle' as const) : ('blanket' as const))],
  ] as const;
  runs = [];
  for (const [k, [model, choose]] of specs.entries())
    for (const rows of [12, 24]) {
      const d = join(dir, `${k}-${rows}`);
      writeRun(d, { n: 10, model, choose, config: { num_transactions: rows, fault_rate: 0.3, seed: 7 } });
      runs.push(await readRun(d, () => {}));
    }
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A paper's column, in points (a two-column US letter or A4 paper). */
const COLUMN_PT = 252;

/**
 * The document's width in its own units and in points, and its smallest text in points when
 * set at `columns` columns (each 252 pt) wide: every font-size in it, the root's included.
 */
function atColumnWidth(svg: string, columns = 1): { units: number; pt: string; smallestPt: number } {
  const root = /^<svg [^>]*>/m.exec(svg)![0];
  const units = Number(/viewBox="0 0 ([\d.]+) /.exec(root)![1]);
  const sizes = [...svg.matchAll(/font-size="([^"]*)"/g)].map((m) => Number(m[1]));
  expect(root).toMatch(/font-size="/);
  expect(svg).not.toMatch(/font-size:|font:/);
  const scale = (columns * COLUMN_PT) / units;
  return { units, pt: /width="([^"]*)"/.exec(root)![1]!, smallestPt: Math.min(...sizes) * scale };
}

/** The document's plain text lines (titles, notes) joined by spaces, so a folded sentence reads whole. */
const prose = (svg: string): string => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]).join(' ');

function sweep() {
  return buildSweep(
    dir,
    runs.map((data) => ({ num_transactions: data.task!.num_transactions, fault_rate: null, model: data.model, data })),
  );
}

describe('bas sweep --svg', () => {
  it('is one standalone, well-formed SVG document a converter can take', () => {
    const svg = sweepSvg(sweep());
    checkWellFormed(svg);
    expect(svg.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg"')).toBe(
      true,
    );
    expect(svg).toMatch(/^<svg [^>]*viewBox="0 0 \d+ \d+"/m);
    expect(svg).not.toMatch(/<script|<style|<foreignObject|href=|url\(|on\w+=/i);
    // Fonts by generic family only: a converter without the system's UI font still has one.
    expect([...svg.matchAll(/font-family="([^"]*)"/g)].map((m) => m[1])).toEqual(
      expect.arrayContaining(['sans-serif']),
    );
    expect(svg).not.toMatch(/font-family="(?!sans-serif")/);
    expect(svg).toContain('a &lt;b&gt;&amp;amp; &quot;c&quot;&lt;/b&gt;');
    // Three measures, three models each.
    expect(svg.match(/<g class="series"/g)!.length).toBe(9);
  });

  it('reads at a column width: about 500 units wide, set 252 pt wide, no text under 10 pt there', () => {
    const { units, pt, smallestPt } = atColumnWidth(sweepSvg(sweep()));
    expect(units).toBeGreaterThanOrEqual(480);
    expect(units).toBeLessThanOrEqual(700);
    expect(pt).toBe(`${COLUMN_PT}pt`);
    expect(smallestPt).toBeGreaterThanOrEqual(10);
  });

  it('has one key for the figure: one entry per model, however many panels', () => {
    const svg = sweepSvg(sweep());
    expect(svg.match(/<svg [^>]*class="curves"/g)).toHaveLength(3);
    expect(svg.match(/<g class="legend"/g)).toHaveLength(3);
    // The panels are stacked (one column), each the figure's width, not side by side.
    const xs = [...svg.matchAll(/<svg x="([\d.]+)" [^>]*class="curves"/g)].map((m) => Number(m[1]));
    expect(xs).toEqual([0, 0, 0]);
  });

  it('carries its settings: the tasks, sampling and versions under the key', () => {
    const svg = sweepSvg(sweep());
    expect(prose(svg)).toMatch(/ tasks: 10 tasks × 1 rollout .* sampling: .* versions: /);
  });

  it('keeps coinciding curves visible: the repeat drawn to the right, and named in the legend', () => {
    const svg = sweepSvg(sweep());
    // (The legend folds long names into lines: joined again here.)
    const squeeze = (t: string) => t.replace(/<\/tspan><tspan[^>]*>/g, '').replace(/\s+/g, '');
    expect(squeeze(svg)).toContain(squeeze('(same points as builtin:oracle: drawn a little to the right)'));
    // In the first panel, series 1's markers sit 3.5 px (at 12 px text; the figure's is 20)
    // right of series 0's, at the same height.
    const markers = (i: number) => {
      const g = new RegExp(`<g class="series" data-series="${i}"[\\s\\S]*?</g>`).exec(svg)![0];
      return [...g.matchAll(/class="marker"/g)].length
        ? [
            ...g.matchAll(/<(?:circle cx="([\d.]+)" cy="([\d.]+)"|rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)")/g),
          ].map((m) =>
            m[1] ? [Number(m[1]), Number(m[2])] : [Number(m[3]) + Number(m[5]) / 2, Number(m[4]) + Number(m[5]) / 2],
          )
        : [];
    };
    const [a, b] = [markers(0), markers(1)];
    expect(a.length).toBe(2);
    expect(b.length).toBe(2);
    for (let k = 0; k < 2; k++) {
      // (Within the 0.1 units coordinates are rounded to.)
      expect(Math.abs(b[k]![0]! - a[k]![0]! - (3.5 * 20) / 12)).toBeLessThan(0.15);
      expect(Math.abs(b[k]![1]! - a[k]![1]!)).toBeLessThan(0.15);
    }
  });
});

describe('bas leaderboard --svg', () => {
  it('draws each group as dots with intervals, rank and tier in the label, numbers beside', () => {
    const lb = buildLeaderboard(
      runs.filter((r) => r.task!.num_transactions === 12),
      { seed: 1, resamples: 200 },
    );
    const svg = leaderboardSvg(lb);
    checkWellFormed(svg);
    expect(svg).not.toMatch(/<script|<style|href=/i);
    const ranked = lb.groups[0]!.runs;
    expect(svg.match(/<circle /g)!.length).toBe(ranked.length);
    for (const r of ranked) {
      const e = r.measures.reward_errors_as_zero;
      expect(svg).toContain(`${r.rank}. `);
      expect(svg).toContain(`(tier ${r.tier})`);
      expect(svg).toContain(`${e.mean!.toFixed(3)} [${e.ci95![0].toFixed(3)}, ${e.ci95![1].toFixed(3)}]`);
      // Each run's figure carries what it was measured with: endpoint, sampling, version.
      const p = r.provenance;
      expect(prose(svg)).toContain(`${p.endpoint} · ${samplingShort(p.sampling)} · bas ${p.bas_version}`);
    }
    // The measure in words, never its JSON key.
    expect(svg).toContain('>reward (errors as 0)</text>');
    expect(prose(svg)).toContain('dots are means, whiskers 95% intervals');
    expect(svg).not.toContain('reward_errors_as_zero');
    // One column wide, no text under 10 pt there.
    const { units, pt, smallestPt } = atColumnWidth(svg);
    expect(units).toBeLessThanOrEqual(700);
    expect(pt).toBe(`${COLUMN_PT}pt`);
    expect(smallestPt).toBeGreaterThanOrEqual(10);
  });
});

describe.skipIf(!existsSync(CHROMIUM))('in headless chromium', () => {
  it('loads as an SVG document without a parser error, every curve and dot drawn', async () => {
    const path = join(dir, 'sweep.svg');
    writeFileSync(path, sweepSvg(sweep()));
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox'] });
    try {
      const page = await browser.newPage();
      await page.goto(`file://${path}`);
      type Doc = { document: { documentElement: { namespaceURI: string } } };
      const root = await page.evaluate(() => (globalThis as unknown as Doc).document.documentElement.namespaceURI);
      const errors = await page.locator('parsererror').count();
      type Drawn = { getBBox(): { width: number } };
      const curves = await page
        .locator('polyline.curve')
        .evaluateAll((els) => els.filter((e) => (e as unknown as Drawn).getBBox().width > 0).length);
      const seen = { root, errors, curves };
      expect(seen).toEqual({ root: 'http://www.w3.org/2000/svg', errors: 0, curves: 9 });
    } finally {
      await browser.close();
    }
  }, 120_000);
});
