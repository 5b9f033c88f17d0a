/**
 * The one app (src/web) in headless chromium, from each of its data sources: a report page's
 * embedded data, `bas view`'s API, and a bundle opened from file:// and from a static server.
 * The diff of two runs leads with the rollouts that flipped; an address copied from any view
 * reopens the same view, in the viewer and in a bundle; no page error, no request leaves the
 * machine, and hostile text stays text. Every wait is on the page's DOM, never on a clock.
 */
import { createServer, type Server } from 'node:http';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { type Browser, type Page } from 'playwright-core';
import { hasChromium, launchChromium, noticeIfMissing } from '../support/chromium.js';
import { bas, tempDir } from '../support/cli.js';
import { startViewServer, type RunningViewServer } from '../../src/view/server.js';
import { writeRun } from '../report/make-run.js';
import { readRun } from '../../src/report/read.js';
import { buildSweep } from '../../src/report/sweep.js';
import { sweepPage } from '../../src/report/html/sweep-page.js';

noticeIfMissing('the browser app tests');

const HOSTILE_REPLY =
  'x </script><script>window.__pwned = 2</script><img src=x onerror="window.__pwned=3"> <answer>{"G1": "<b>1</b>", "faults": {}}</answer>';
/** Tasks where run B's outcome flips: right to wrong (3, 7: blanket; 5: the hostile reply), right to errored (9). */
const FLIPPED = [3, 5, 7, 9];

let root: string;
let third: string;
let server: RunningViewServer;
let staticServer: Server;
let staticUrl: string;
let browser: Browser | undefined;

beforeAll(async () => {
  root = tempDir('bas-web-');
  const runs = join(root, 'runs');
  writeRun(join(runs, 'a'), { n: 30, model: 'builtin:oracle', choose: () => 'oracle' });
  writeRun(join(runs, 'b'), {
    n: 30,
    model: 'model <b>',
    choose: (i) =>
      [3, 7].includes(i) ? 'blanket' : i === 5 ? { reply: HOSTILE_REPLY } : i === 9 ? { error: 'timeout' } : 'oracle',
  });
  // The bundle of the folder the viewer serves: its runs have the same ids (runs/a, runs/b).
  expect((await bas(['view', root, '--bundle', join(root, 'bundle.html')])).code).toBe(0);
  expect((await bas(['compare', join(runs, 'a'), join(runs, 'b'), '--html', join(root, 'compare.html')])).code).toBe(0);
  expect((await bas(['report', join(runs, 'b'), '--html', join(root, 'run.html')])).code).toBe(0);
  expect((await bas(['leaderboard', runs, '--html', join(root, 'leaderboard.html')])).code).toBe(0);
  // A third run, outside the served folder: a comparison of three runs holds two pairs.
  third = join(tempDir('bas-web-c-'), 'c');
  writeRun(third, { n: 30, model: 'builtin:blanket', choose: () => 'blanket' });
  const three = ['compare', join(runs, 'a'), join(runs, 'b'), third];
  expect((await bas([...three, '--html', join(root, 'compare3.html')])).code).toBe(0);
  // A sweep of the two runs as its points (one model each), as bas sweep --html writes it.
  const points = await Promise.all(
    ['a', 'b'].map(async (k) => ({
      num_transactions: 12,
      fault_rate: null,
      data: await readRun(join(runs, k), () => {}),
    })),
  );
  writeFileSync(join(root, 'sweep.html'), sweepPage(buildSweep(join(root, 'grid'), points)));
  server = await startViewServer({ root, port: 0, host: '127.0.0.1', token: null, maxConnections: 64 });
  // A static host: the bundle as any web server would serve it, nothing else.
  const bundle = readFileSync(join(root, 'bundle.html'));
  staticServer = createServer((_, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(bundle));
  await new Promise<void>((r) => staticServer.listen(0, '127.0.0.1', r));
  staticUrl = `http://127.0.0.1:${(staticServer.address() as AddressInfo).port}/bundle.html`;
  if (hasChromium) browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await new Promise((r) => staticServer?.close(r));
});

/** A page that may reach only `origin` (file: for a file): anything else is refused and noted. */
async function watched(origin: string, seen: { offsite: string[]; errors: string[] }): Promise<Page> {
  const page = await browser!.newPage({ viewport: { width: 1400, height: 900 } });
  await page.route('**/*', (route) => {
    const to = route.request().url();
    if (to.startsWith(origin)) return route.continue();
    seen.offsite.push(to);
    return route.abort();
  });
  page.on('console', (m) => m.type() === 'error' && seen.errors.push(m.text()));
  page.on('pageerror', (e) => seen.errors.push(String(e)));
  return page;
}

const pwned = (page: Page) => page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned);

/** The diff leads with the flipped rollouts; one opens side by side with both ledgers marked. */
async function checkDiff(page: Page): Promise<void> {
  await page.locator('#diff-list tbody tr').first().waitFor();
  const rows = await page
    .locator('#diff-list tbody tr')
    .evaluateAll((rs) => rs.map((r) => [r.getAttribute('data-index'), r.textContent ?? ''] as const));
  // The flipped four first, then the rest, which did not change.
  expect(
    rows
      .slice(0, 4)
      .map(([i]) => Number(i))
      .sort((x, y) => x - y),
  ).toEqual(FLIPPED);
  expect(rows.find(([i]) => i === '3')![1]).toContain('BAS right → BAS wrong');
  expect(rows.find(([i]) => i === '9')![1]).toContain('BAS right → errored');
  expect(rows.slice(4).every(([, text]) => !text.includes('→'))).toBe(true);
  await page.locator('#diff-list tbody tr[data-index="3"] a').click();
  await page.locator('#side-a .ledger tr[data-mark]').first().waitFor();
  await page.locator('#side-b .ledger tr[data-mark="wrong"]').first().waitFor();
  expect(await page.locator('#side-a .ledger tr[data-mark="wrong"]').count()).toBe(0);
  expect(page.url()).toMatch(/rollout=3%3A0|rollout=3:0/);
}

/** The leaderboard: its text as the command prints it, the oracle first, each run a link to its page. */
async function checkLeaderboard(page: Page): Promise<void> {
  await page.locator('#leaderboard-groups a').nth(1).waitFor();
  expect(await page.locator('#leaderboard-groups tbody tr').first().getAttribute('data-run')).toBe('runs/a');
  expect(await page.locator('#leaderboard').textContent()).toContain('builtin:oracle');
  await page.locator('#leaderboard-groups a', { hasText: 'model <b>' }).click();
  await page.locator('#task-list tbody tr').first().waitFor();
  expect(new URL(page.url()).hash).toBe('#/run/runs/b');
}

/** Opens the rollout of task 5 of run b from its list, and says which address names it. */
async function openHostileRollout(page: Page): Promise<string> {
  await page.locator('#task-list tbody tr[data-index="5"]').click();
  await page.locator('#drill-panel[data-pair="5:0"] .reply').waitFor();
  expect(await page.locator('#drill-panel .reply').textContent()).toBe(HOSTILE_REPLY);
  expect(await page.locator('#drill-panel .ledger tr[data-row]').count()).toBe(12);
  return new URL(page.url()).hash;
}

describe.skipIf(!hasChromium)('the app in headless chromium', () => {
  const seen = { offsite: [] as string[], errors: [] as string[] };

  afterAll(() => {
    expect(seen.offsite).toEqual([]);
    expect(seen.errors).toEqual([]);
  });

  it('bas view: a run at #/run/runs/b opens (as #/run/runs%2Fb did), and a copied address reopens its rollout', async () => {
    const page = await watched(server.url.replace(/\/$/, ''), seen);
    await page.goto(`${server.url}#/run/runs/b`);
    await page.locator('#report', { hasText: 'reward distribution' }).waitFor();
    const hash = await openHostileRollout(page);
    expect(hash).toMatch(/^#\/run\/runs\/b\?rollout=5(%3A|:)0$/);
    const again = await watched(server.url.replace(/\/$/, ''), seen);
    await again.goto(`${server.url}${hash}`);
    await again.locator('#drill-panel[data-pair="5:0"] .reply').waitFor();
    expect(await again.locator('#drill-panel .reply').textContent()).toBe(HOSTILE_REPLY);
    expect(await pwned(again)).toBeUndefined();
    await again.close();
    await page.close();
  });

  it('bas view: the runs ranked as bas leaderboard ranks them, in the --html tables, each linked', async () => {
    const page = await watched(server.url.replace(/\/$/, ''), seen);
    await page.goto(server.url);
    await page.locator('#leaderboard-link').click();
    await page.locator('#app section h3', { hasText: 'How each run was made' }).waitFor();
    // Names as text in the tables too; the figures are the pages' and the bundles'.
    expect(await page.locator('#app section td', { hasText: 'model <b>' }).count()).toBeGreaterThan(0);
    expect(await page.locator('#app td b').count()).toBe(0);
    expect(await page.locator('#app section p.small', { hasText: '--bundle' }).count()).toBe(1);
    await checkLeaderboard(page);
    await page.close();
  });

  it('bas view: two runs diffed, flipped rollouts first, side by side', async () => {
    const page = await watched(server.url.replace(/\/$/, ''), seen);
    await page.goto(`${server.url}#/compare?a=runs/a&b=runs/b`);
    await checkDiff(page);
    await page.locator('#comparison', { hasText: 'paired differences' }).waitFor();
    await page.close();
  });

  it('a run page: the same list and rollout, and its address reopens the rollout', async () => {
    const page = await watched('file:', seen);
    await page.goto(`file://${join(root, 'run.html')}`);
    const hash = await openHostileRollout(page);
    expect(hash).toMatch(/^#\/run\/b\?rollout=5(%3A|:)0$/);
    await page.selectOption('#filter', 'bas-wrong');
    expect(new URL(page.url()).hash).toContain('show=bas-wrong');
    const again = await watched('file:', seen);
    await again.goto(`file://${join(root, 'run.html')}${hash}`);
    await again.locator('#drill-panel[data-pair="5:0"] .reply').waitFor();
    expect(await pwned(again)).toBeUndefined();
    await again.close();
    await page.close();
  });

  it('a comparison page: its diff leads with the flipped rollouts, each side by side, hostile text as text', async () => {
    const page = await watched('file:', seen);
    await page.goto(`file://${join(root, 'compare.html')}`);
    await checkDiff(page);
    // The server-drawn figures stay, under the diff.
    expect(await page.locator('#changed ~ section h2', { hasText: 'Paired differences' }).count()).toBe(1);
    await page.locator('#diff-list tbody tr[data-index="5"] a').click();
    await page.locator('#side-b section[data-pair="5:0"] .reply').waitFor();
    expect(await page.locator('#side-b section[data-pair="5:0"] .reply').textContent()).toBe(HOSTILE_REPLY);
    expect(await pwned(page)).toBeUndefined();
    await page.close();
  });

  it('a comparison page of three runs: each pair against the baseline, its diff a link away', async () => {
    const page = await watched('file:', seen);
    await page.goto(`file://${join(root, 'compare3.html')}`);
    await page.locator('#diff-list tbody tr').first().waitFor();
    await page.locator('#app a', { hasText: `${third} against` }).click();
    await page.locator('#app b', { hasText: `${third} against` }).waitFor();
    // Every task flipped from right to wrong: all 30 listed, each a flip.
    await page.locator('#diff-list tbody tr.flipped').nth(29).waitFor();
    expect(await page.locator('#diff-list tbody tr').count()).toBe(30);
    await page.close();
  });

  it('a leaderboard page: the app draws its tables and figures from the page, names as text', async () => {
    const page = await watched('file:', seen);
    await page.goto(`file://${join(root, 'leaderboard.html')}`);
    await page.locator('#app section table').first().waitFor();
    expect(await page.locator('#app section h2').first().textContent()).toContain('12 rows');
    expect(await page.locator('#app svg .whisker').count()).toBeGreaterThanOrEqual(2);
    // The run of model "model <b>" is named as text, never as markup.
    expect(await page.locator('#app td', { hasText: 'model <b>' }).count()).toBeGreaterThan(0);
    expect(await page.locator('#app td b').count()).toBe(0);
    expect(await page.locator('#leaderboard').textContent()).toContain('builtin:oracle');
    expect(new URL(page.url()).hash).toBe('#/leaderboard');
    await page.close();
  });

  it('a sweep page: the app draws its curves and points from the page, names as text', async () => {
    const page = await watched('file:', seen);
    await page.goto(`file://${join(root, 'sweep.html')}`);
    await page.locator('#app section table').first().waitFor();
    expect(await page.locator('#app svg .marker').count()).toBeGreaterThanOrEqual(6);
    expect(await page.locator('#app td', { hasText: 'model <b>' }).count()).toBe(1);
    expect(await page.locator('#app td b').count()).toBe(0);
    expect(await page.locator('#sweep-table').textContent()).toContain('model <b>');
    expect(new URL(page.url()).hash).toBe('#/sweep/grid');
    await page.close();
  });

  for (const where of ['file', 'static server'] as const) {
    it(`a bundle from a ${where}: the runs, a run, the same address as bas view's, the diff`, async () => {
      const url = where === 'file' ? `file://${join(root, 'bundle.html')}` : staticUrl;
      const page = await watched(where === 'file' ? 'file:' : staticUrl, seen);
      await page.goto(url);
      await page.locator('#runs tbody tr').nth(1).waitFor();
      expect(await page.locator('#runs tbody tr[data-run="runs/b"] td').nth(3).textContent()).toBe('model <b>');
      // The address bas view gave the rollout opens it here too.
      await page.goto(`${url}#/run/runs/b?rollout=5:0`);
      await page.locator('#drill-panel[data-pair="5:0"] .reply').waitFor();
      expect(await page.locator('#drill-panel .reply').textContent()).toBe(HOSTILE_REPLY);
      await page.locator('#report', { hasText: 'reward distribution' }).waitFor();
      await page.locator('#filter').selectOption('error');
      await page.locator('#matching', { hasText: '1–1 of 1 matching' }).waitFor();
      await page.goto(`${url}#/compare?a=runs/a&b=runs/b`);
      await checkDiff(page);
      await page.locator('#comparison', { hasText: 'paired differences' }).waitFor();
      await page.goto(`${url}#/leaderboard`);
      // The bundle holds the leaderboard's figures, as its --html page does.
      await page.locator('#app section svg .whisker').nth(1).waitFor();
      await checkLeaderboard(page);
      expect(await pwned(page)).toBeUndefined();
      await page.close();
    });
  }
});

describe('the bundle file', () => {
  it('refuses a place it cannot write, in one line, writing nothing', async () => {
    const r = await bas(['view', root, '--bundle', join(root, 'missing', 'b.html')]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('--bundle');
  });

  it('is one file with every rollout, that names nothing elsewhere', () => {
    const html = readFileSync(join(root, 'bundle.html'), 'utf8');
    expect(html).not.toMatch(/(src|href)\s*=\s*["']?(https?:)?\/\//i);
    expect(html).toContain(`default-src 'none'`);
    expect(html.match(/<\/script>/g)!.length).toBe(2);
    expect(html).not.toContain('window.__pwned = 2</script>');
    expect(statSync(join(root, 'bundle.html')).size).toBeGreaterThan(0);
  });

  it('serves nothing, so asks no token: --host off loopback does not stop a bundle', async () => {
    const out = join(tempDir(), 'hosted.html');
    const r = await bas(['view', root, '--bundle', out, '--host', '0.0.0.0']);
    expect(r.code, r.stderr).toBe(0);
    expect(statSync(out).size).toBeGreaterThan(0);
  });

  it('does not tell where it was made: no absolute path of the folder it was read from', () => {
    const html = readFileSync(join(root, 'bundle.html'), 'utf8');
    expect(html).not.toContain(dirname(root));
  });
});

describe.skipIf(!hasChromium)('a bundle of a run past its bound', () => {
  it('holds the report page’s selection, and says of how many', async () => {
    const { writeBundle } = await import('../../src/view/bundle.js');
    const out = join(root, 'small-bound.html');
    // A bound of 10 rollouts: runs/a (30) holds the selection, as a run past 20,000 would.
    const n = await writeBundle(root, out, 10);
    expect(n.runs).toBe(2);
    expect(n.rollouts).toBeLessThan(60);
    const seen = { offsite: [] as string[], errors: [] as string[] };
    const page = await watched('file:', seen);
    await page.goto(`file://${out}#/run/runs/a`);
    await page.locator('#reading', { hasText: "of the run's 30 rollouts" }).waitFor();
    expect(seen).toEqual({ offsite: [], errors: [] });
    await page.close();
  });
});

describe('a bundle of runs deep under long folder names', () => {
  it('keeps no piece of the path above its folder, even where a table wraps a long name', async () => {
    const above = join(tempDir('bas-web-deep-'), 'a-very-long-parent-folder-name-that-tables-wrap', 'another-long-one');
    const deep = join(above, 'runs-root');
    writeRun(join(deep, 'first-run-with-a-long-name'), { n: 10, model: 'builtin:oracle', choose: () => 'oracle' });
    writeRun(join(deep, 'second-run-with-a-long-name'), { n: 10, model: 'builtin:blanket', choose: () => 'blanket' });
    const out = join(deep, 'bundle.html');
    expect((await bas(['view', deep, '--bundle', out])).code).toBe(0);
    const html = readFileSync(out, 'utf8');
    expect(html).toContain('first-run-with-a-long-name');
    expect(html).not.toContain('a-very-long-parent-folder-name');
    expect(html).not.toContain('another-long-one');
  });
});
