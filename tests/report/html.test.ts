/**
 * The HTML report in a real headless browser (Debian's chromium via playwright-core): no
 * console errors, no network, a task opens with its rows marked, and hostile reply text
 * stays text. Skipped, with a notice, where /usr/bin/chromium is absent.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium, noticeIfMissing } from '../support/chromium.js';
import { type Browser } from 'playwright-core';
import { readRun } from '../../src/report/read.js';
import { buildRunReport } from '../../src/report/run-report.js';
import { buildComparison } from '../../src/report/compare.js';
import { writeCompareHtml, writeRunHtml } from '../../src/report/html/write.js';
import { buildDrillData } from '../../src/report/html/drilldown.js';
import { leaderboardPage } from '../../src/report/html/leaderboard-page.js';
import { buildLeaderboard } from '../../src/report/leaderboard.js';
import { sweepPage } from '../../src/report/html/sweep-page.js';
import { buildSweep } from '../../src/report/sweep.js';
import { writeRun } from './make-run.js';

noticeIfMissing('the HTML browser tests');

const HOSTILE =
  'x </script><script>window.__pwned = 1</script><img src=x onerror="window.__pwned=2"> <answer>{"G1": "<b>1</b>", "faults": {}}</answer>';

let dir: string;
/** Screenshots stay after the run, for a person to look at. */
const shots = mkdtempSync(join(tmpdir(), 'bas-html-shots-'));
let browser: Browser | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bas-html-'));
  writeRun(join(dir, 'a'), {
    n: 12,
    model: 'mixed <i>model</i>',
    choose: (i) => (i === 3 ? { error: 'timeout' } : i === 5 ? { reply: HOSTILE } : i % 2 ? 'oracle' : 'blanket'),
  });
  writeRun(join(dir, 'b'), { n: 12, model: 'builtin:oracle', choose: () => 'oracle' });
  const a = await readRun(join(dir, 'a'), () => {});
  await writeRunHtml(join(dir, 'a.html'), a, buildRunReport(a));
  const b = await readRun(join(dir, 'b'), () => {});
  await writeCompareHtml(join(dir, 'c.html'), buildComparison([a, b], 1, 1000));
  // Four runs with realistic long names, two of them of one model in look-alike folders.
  const long = 'anthropic/claude-3-5-sonnet-20241022-with-a-long-deployment-suffix';
  const wide: string[] = [];
  for (const [k, model] of [
    ['2026-12-02T16-00-00Z-temperature-0.7-first-attempt-of-the-evening', long],
    ['2026-12-02T16-00-00Z-temperature-0.7-second-attempt-of-the-evening', long],
    ['x', 'builtin:oracle'],
    ['y', 'openai/gpt-4o-mini-2024-07-18'],
  ] as const) {
    const d = join(dir, 'some', 'deeply', 'nested', 'results', 'folder', k);
    writeRun(d, { n: 12, model, choose: (i) => (i % 3 ? 'oracle' : 'blanket') });
    wide.push(d);
  }
  const runs = [];
  for (const d of wide) runs.push(await readRun(d, () => {}));
  await writeCompareHtml(join(dir, 'wide.html'), buildComparison(runs, 1, 1000));
  // The leaderboard also holds a run of a short name that must not break mid-word, and one not ranked.
  const blanket = join(dir, 'some', 'deeply', 'nested', 'results', 'folder', 'blanket');
  writeRun(blanket, { n: 12, model: 'builtin:blanket', choose: () => 'blanket' });
  const cut = join(dir, 'some', 'deeply', 'nested', 'results', 'folder', 'cut-off-run-of-the-evening');
  writeRun(cut, { n: 12, model: long, choose: () => 'oracle', status: 'interrupted' });
  const board = [...runs, await readRun(blanket, () => {}), await readRun(cut, () => {})];
  writeFileSync(join(dir, 'leaderboard.html'), leaderboardPage(buildLeaderboard(board, { seed: 1, resamples: 500 })));
  // Two models, two points each: a curve per model in each figure.
  const points = runs.map((data, i) => ({
    num_transactions: [12, 240, 12, 240][i]!,
    fault_rate: null,
    model: i < 2 ? long : 'openai/gpt-4o-mini-2024-07-18',
    data,
  }));
  writeFileSync(
    join(dir, 'sweep.html'),
    sweepPage(buildSweep(join(dir, 'some', 'deeply', 'nested', 'results', 'folder'), points)),
  );
  if (hasChromium) {
    browser = await launchChromium();
  }
});

afterAll(async () => {
  await browser?.close();
  if (browser) console.log(`HTML report screenshots: ${shots}`);
  rmSync(dir, { recursive: true, force: true });
});

describe('the HTML file', () => {
  it('is self-contained: no external URL, escaped text, data that cannot close its script', () => {
    const html = readFileSync(join(dir, 'a.html'), 'utf8');
    expect(html).not.toMatch(/(src|href)\s*=\s*["']?(https?:)?\/\//i);
    expect(html).toContain('mixed &lt;i&gt;model&lt;/i&gt;');
    expect(html).not.toContain('window.__pwned = 1</script>');
    expect(html.match(/<\/script>/g)!.length).toBe(2); // the data block and the page script
  });
});

describe.skipIf(!hasChromium)('in headless chromium', () => {
  async function open(file: string) {
    const page = await browser!.newPage({ viewport: { width: 1300, height: 900 } });
    const errors: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('request', (r) => !r.url().startsWith('file:') && !r.url().startsWith('data:') && requests.push(r.url()));
    await page.goto(`file://${file}`);
    return { page, errors, requests };
  }

  it('run page: lists tasks, opens one with its rows marked, keeps replies as text', async () => {
    const { page, errors, requests } = await open(join(dir, 'a.html'));
    expect(await page.locator('#task-list tbody tr').count()).toBe(12);
    // A blanket reply on task 0: every row is wrongly flagged somewhere.
    await page.locator('#task-list tbody tr[data-index="0"]').click();
    const marks = await page
      .locator('#drill-panel tr[data-mark]')
      .evaluateAll((rs) => rs.map((r) => (r as unknown as { dataset: { mark?: string } }).dataset.mark));
    expect(marks.length).toBe(12);
    expect(marks.every((m) => m === 'wrong')).toBe(true);
    await page.screenshot({ path: join(shots, 'run-blanket.png'), fullPage: true });
    // The oracle on task 1: faults found, clean rows clean, figures right.
    await page.locator('#task-list tbody tr[data-index="1"]').click();
    const marks1 = await page
      .locator('#drill-panel tr[data-mark]')
      .evaluateAll((rs) => rs.map((r) => (r as unknown as { dataset: { mark?: string } }).dataset.mark));
    expect(marks1).toContain('found');
    expect(marks1.every((m) => m === 'found' || m === 'clean')).toBe(true);
    expect(await page.locator('#drill-panel td.right').count()).toBe(4);
    // The hostile reply is shown as text and runs nothing.
    await page.locator('#task-list tbody tr[data-index="5"]').click();
    expect(await page.locator('#drill-panel pre.reply').textContent()).toContain(
      '</script><script>window.__pwned = 1</script>',
    );
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    await page.locator('#drill-panel').screenshot({ path: join(shots, 'drill.png') });
    // Filtering: the errored rollout alone.
    await page.selectOption('#filter', 'error');
    expect(await page.locator('#task-list tbody tr').count()).toBe(1);
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    await page.close();
  });

  it('a 10,000-rollout page embeds a bounded selection and says how to see the rest', async () => {
    const big = join(dir, 'big');
    writeRun(big, {
      n: 10_000,
      model: 'builtin:mixed',
      choose: (i) => (i % 9 === 4 ? { error: 'provider' } : i % 3 ? 'oracle' : 'raw-sums'),
    });
    const d = await readRun(big, () => {});
    const drill = await buildDrillData(d, [[9999, 0]]);
    // Worst 20, best 10, per code up to 5 + 5, 5 errored, plus the one asked for: at most 86.
    expect(drill.rollouts.length).toBeLessThanOrEqual(86);
    expect(drill.rollouts.length).toBeGreaterThan(30);
    expect(drill.total_rollouts).toBe(10_000);
    await writeRunHtml(join(dir, 'big.html'), d, buildRunReport(d), drill);
    expect(statSync(join(dir, 'big.html')).size).toBeLessThan(1_000_000);
    const { page, errors } = await open(join(dir, 'big.html'));
    expect(await page.locator('#task-list tbody tr').count()).toBe(drill.rollouts.length);
    expect(await page.locator('#tasks').textContent()).toMatch(/embeds \d+ of the run's 10,000 rollouts/);
    expect(await page.locator('#tasks').textContent()).toContain('--rollout INDEX:ROLLOUT');
    await page.fill('#query', '9999');
    expect(await page.locator('#task-list tbody tr').count()).toBe(1);
    expect(await page.locator('#task-list tbody tr').first().textContent()).toContain('asked for');
    await page.locator('#task-list tbody tr').first().click();
    expect(await page.locator('#drill-panel tr[data-mark]').count()).toBe(12);
    expect(await page.locator('.ledger').count()).toBe(1); // only the opened task is built
    await page.selectOption('#filter', 'error');
    await page.fill('#query', '');
    expect(await page.locator('#task-list tbody tr').count()).toBe(5);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('compare page: bars with whiskers per run, a verdict', async () => {
    const { page, errors } = await open(join(dir, 'c.html'));
    expect(await page.locator('svg .whisker').count()).toBeGreaterThanOrEqual(8);
    expect(await page.locator('body').textContent()).toContain('B better');
    await page.screenshot({ path: join(shots, 'compare.png'), fullPage: true });
    expect(errors).toEqual([]);
    await page.close();
  });

  async function fitsAt1280(file: string) {
    const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`file://${join(dir, file)}`);
    const scroll = await page.evaluate(() => {
      const d = (
        globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }
      ).document;
      return { scroll: d.documentElement.scrollWidth, client: d.documentElement.clientWidth };
    });
    expect(scroll.scroll).toBeLessThanOrEqual(scroll.client);
    // No element inside the page scrolls sideways either.
    type Box = { scrollWidth: number; clientWidth: number };
    const inner = await page.locator('main *').evaluateAll((els) => {
      const style = (globalThis as unknown as { getComputedStyle(e: unknown): { overflowX: string } }).getComputedStyle;
      return els.filter(
        (e) =>
          (e as unknown as Box).scrollWidth > (e as unknown as Box).clientWidth + 1 && style(e).overflowX !== 'visible',
      ).length;
    });
    expect(inner).toBe(0);
    // Every text of every chart lies inside its drawing.
    const cut = await page.locator('svg').evaluateAll((svgs) =>
      svgs.flatMap((svg) => {
        const box = (svg as unknown as { viewBox: { baseVal: { width: number; height: number } } }).viewBox.baseVal;
        return [...svg.querySelectorAll('text')]
          .map((t) => ({
            text: t.textContent,
            b: (t as unknown as { getBBox(): { x: number; y: number; width: number; height: number } }).getBBox(),
          }))
          .filter(
            ({ b }) => b.x < -0.5 || b.y < -0.5 || b.x + b.width > box.width + 0.5 || b.y + b.height > box.height + 0.5,
          )
          .map(({ text }) => text);
      }),
    );
    expect(cut).toEqual([]);
    return page;
  }

  it('run page at 1400 px: the task list wraps its "embedded as" reasons instead of widening the page', async () => {
    const page = await browser!.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`file://${join(dir, 'a.html')}`);
    const width = await page.evaluate(() => {
      const d = (
        globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }
      ).document;
      return { scroll: d.documentElement.scrollWidth, client: d.documentElement.clientWidth };
    });
    expect(width.scroll).toBeLessThanOrEqual(width.client);
    await page.close();
  });

  it('sweep page at 1280 px: a curve per model and measure with interval bands, nothing cut', async () => {
    const page = await fitsAt1280('sweep.html');
    expect(await page.locator('svg polyline.curve').count()).toBe(6);
    expect(await page.locator('svg .band').count()).toBe(6);
    expect(await page.locator('svg .marker').count()).toBe(12);
    expect(await page.locator('svg g.legend').count()).toBe(6);
    await page.screenshot({ path: join(shots, 'sweep.png'), fullPage: true });
    await page.close();
  });

  it('leaderboard page at 1280 px: no sideways scroll, no chart label cut', async () => {
    const page = await fitsAt1280('leaderboard.html');
    expect(await page.locator('svg text.label').count()).toBe(5);
    // Every table stays inside its card, and no word of a wrapped cell is broken across lines.
    const report = await page.evaluate(() => {
      type El = {
        getBoundingClientRect(): { right: number };
        closest(s: string): El | null;
        querySelectorAll(s: string): ArrayLike<El>;
        childNodes: ArrayLike<{ nodeType: number; textContent: string | null }>;
      };
      type Doc = {
        querySelectorAll(s: string): ArrayLike<El>;
        createRange(): {
          setStart(n: unknown, o: number): void;
          setEnd(n: unknown, o: number): void;
          getClientRects(): { length: number };
        };
      };
      const doc = (globalThis as unknown as { document: Doc }).document;
      const overflow = Array.from(doc.querySelectorAll('section table')).filter(
        (t) => t.getBoundingClientRect().right > t.closest('section')!.getBoundingClientRect().right + 0.5,
      ).length;
      const broken: string[] = [];
      for (const td of Array.from(doc.querySelectorAll('td.wrap'))) {
        for (const node of Array.from(td.childNodes)) {
          if (node.nodeType !== 3) continue;
          const text = node.textContent ?? '';
          for (const m of text.matchAll(/[A-Za-z0-9]+/g)) {
            const range = doc.createRange();
            range.setStart(node, m.index!);
            range.setEnd(node, m.index! + m[0].length);
            if (range.getClientRects().length > 1) broken.push(m[0]);
          }
        }
      }
      return { overflow, broken };
    });
    expect(report).toEqual({ overflow: 0, broken: [] });
    expect(await page.locator('text=Not ranked').count()).toBeGreaterThan(0);
    await page.screenshot({ path: join(shots, 'leaderboard.png'), fullPage: true });
    await page.close();
  });

  it('compare page at 1280 px: no sideways scroll, no chart label cut, same-model runs told apart', async () => {
    const page = await fitsAt1280('wide.html');
    const labels = await page.locator('svg text.label').allTextContents();
    expect(labels.some((l) => l.includes('first-attempt'))).toBe(true);
    expect(labels.some((l) => l.includes('second-attempt'))).toBe(true);
    expect(await page.title()).toContain('first-attempt');
    expect(await page.title()).toContain('second-attempt');
    await page.screenshot({ path: join(shots, 'compare-wide.png'), fullPage: true });
    await page.close();
  });
});
