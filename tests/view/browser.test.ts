/**
 * `bas view` in a real headless browser (Debian's chromium via playwright-core, as the HTML
 * report is tested): the run list, a run and a rollout, a filter, a live run's progress as
 * records are appended, a comparison side by side; no request leaves 127.0.0.1, no page
 * error, and a hostile model name or reply stays text. Skipped, with a notice, where
 * /usr/bin/chromium is absent. Every wait is on the page's DOM, never on a clock.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium, noticeIfMissing } from '../support/chromium.js';
import { type Browser, type Page } from 'playwright-core';
import { startViewServer, type RunningViewServer } from '../../src/view/server.js';
import { processStartTime } from '../../src/runfile/lock.js';
import { makeRecord, SMALL_CONFIG, writeRun, writeSweepPlan } from '../report/make-run.js';
import { tempDir } from '../support/cli.js';

noticeIfMissing('the bas view browser tests');

const HOSTILE_MODEL = '<img src=x onerror="window.__pwned=1">';
const HOSTILE_REPLY =
  'x </script><script>window.__pwned = 2</script><img src=x onerror="window.__pwned=3"> <answer>{"G1": "<b>1</b>", "faults": {}}</answer>';

let root: string;
let server: RunningViewServer;
let browser: Browser | undefined;
const pid = Number(globalThis.process.pid);

beforeAll(async () => {
  root = tempDir('bas-view-browser-');
  writeRun(join(root, 'a'), {
    n: 60,
    model: HOSTILE_MODEL,
    choose: (i) =>
      i === 3
        ? { error: 'timeout' }
        : i === 5
          ? { reply: HOSTILE_REPLY }
          : i === 7
            ? { reply: 'no answer block here' }
            : i % 2
              ? 'oracle'
              : 'blanket',
  });
  writeRun(join(root, 'b'), { n: 60, model: 'builtin:oracle', choose: () => 'oracle' });
  // A run going on: run.json says running, and a live process (this one) holds its lock.
  const live = join(root, 'live');
  writeRun(live, { n: 2, model: 'live-model', choose: () => 'oracle', status: 'running', runJson: { n: 50 } });
  writeFileSync(
    join(live, '.bas.lock'),
    JSON.stringify({ program: 'bas', pid, start: processStartTime(pid), host: hostname(), token: 't', since: '' }),
  );
  server = await startViewServer({ root, port: 0, host: '127.0.0.1', token: null, maxConnections: 64 });
  if (hasChromium) browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/**
 * A page of a 1,400-pixel window that may only reach `url`'s origin: every other request is
 * refused and noted in `offsite`, and console errors and page errors are noted in `errors`.
 */
async function watchedPage(url: string, offsite: string[], errors: string[]): Promise<Page> {
  const page = await browser!.newPage({ viewport: { width: 1400, height: 900 } });
  const origin = url.replace(/\/$/, '');
  await page.route('**/*', (route) => {
    const to = route.request().url();
    if (to.startsWith(origin)) return route.continue();
    offsite.push(to);
    return route.abort();
  });
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(String(e)));
  return page;
}

describe.skipIf(!hasChromium)('bas view in headless chromium', () => {
  const offsite: string[] = [];
  const errors: string[] = [];
  let page: Page;

  beforeAll(async () => {
    page = await watchedPage(server.url, offsite, errors);
  });

  afterAll(async () => {
    expect(offsite).toEqual([]);
    expect(errors).toEqual([]);
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    await page.close();
  });

  it('lists the runs, the hostile model name as text', async () => {
    await page.goto(server.url);
    await page.locator('#runs tbody tr').nth(2).waitFor();
    expect(await page.locator('#runs tbody tr').count()).toBe(3);
    const row = page.locator('#runs tbody tr[data-run="a"]');
    expect(await row.locator('td').nth(3).textContent()).toBe(HOSTILE_MODEL);
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.locator('#runs tbody tr[data-run="live"] .status-running').textContent()).toBe('running');
  });

  it('sorts the list by a column, in a URL that reopens it', async () => {
    await page.locator('#runs th[data-key="reward"]').click();
    await page.waitForURL(/sort=reward&dir=desc/);
    await page.locator('#runs tbody tr').nth(2).waitFor();
    expect(await page.locator('#runs tbody tr').first().getAttribute('data-run')).not.toBe('a');
  });

  it('opens a run: provenance first, the report, its rollouts paged', async () => {
    await page.goto(`${server.url}#/run/a`);
    await page.locator('#report', { hasText: 'reward distribution' }).waitFor();
    expect(await page.locator('#provenance th').first().textContent()).toBe('model');
    await page.locator('#matching', { hasText: 'of 60 matching' }).waitFor();
    expect(await page.locator('#task-list tbody tr').count()).toBe(50);
  });

  it('filters the rollouts', async () => {
    await page.locator('#filter').selectOption('error');
    await page.locator('#matching', { hasText: '1–1 of 1 matching' }).waitFor();
    expect(page.url()).toMatch(/show=error/);
    expect(await page.locator('#task-list tbody tr').first().locator('td').nth(3).textContent()).toBe('errored');
    // Unparseable replies: offered by the live server too, the server filtering them.
    await page.locator('#filter').selectOption('unparseable');
    await page.locator('#task-list tbody tr .badge.unparseable').waitFor();
    expect(page.url()).toMatch(/show=unparseable/);
    expect(await page.locator('#matching').textContent()).toMatch(/1–1 of 1 matching/);
    expect(await page.locator('#task-list tbody tr').first().locator('td').nth(0).textContent()).toBe('7');
  });

  it('opens a rollout: the ledger marked, the hostile reply as text', async () => {
    await page.goto(`${server.url}#/run/a/rollout/5:0`);
    await page.locator('#drill-panel .reply').waitFor();
    expect(await page.locator('#drill-panel .reply').textContent()).toBe(HOSTILE_REPLY);
    expect(await page.locator('#drill-panel .ledger tr[data-row]').count()).toBe(SMALL_CONFIG.num_transactions);
    expect(await page.locator('img').count()).toBe(0);
    // A blanket reply flags every row: wrongly flagged rows are marked.
    await page.goto(`${server.url}#/run/a/rollout/0:0`);
    await page.locator('#drill-panel[data-pair="0:0"] .ledger tr.row-wrong').first().waitFor();
    expect(await page.locator('#drill-panel .ledger tr.row-wrong').count()).toBeGreaterThan(0);
  });

  it("follows a live run's progress as records are appended", async () => {
    await page.goto(`${server.url}#/run/live`);
    await page.locator('#progress', { hasText: '2 of 50 rollouts recorded' }).waitFor();
    const lines = [2, 3, 4].map((i) => JSON.stringify(makeRecord(SMALL_CONFIG, i, 0, 'live-model', 'oracle')));
    appendFileSync(join(root, 'live', 'results.jsonl'), lines.join('\n') + '\n');
    await page.locator('#progress', { hasText: '5 of 50 rollouts recorded' }).waitFor();
    await page.locator('#matching', { hasText: 'of 5 matching' }).waitFor();
    // The list follows too, without a reload.
    await page.goto(server.url);
    await page.locator('#runs tbody tr[data-run="live"] .progress', { hasText: '5 / 50' }).waitFor();
    appendFileSync(
      join(root, 'live', 'results.jsonl'),
      JSON.stringify(makeRecord(SMALL_CONFIG, 5, 0, 'm', 'oracle')) + '\n',
    );
    await page.locator('#runs tbody tr[data-run="live"] .progress', { hasText: '6 / 50' }).waitFor();
  });

  it("shows a running run's count as of the list's answer, not one answer behind (issue 36)", async () => {
    await page.goto(server.url);
    await page.locator('#runs tbody tr[data-run="live"] .progress', { hasText: '6 / 50' }).waitFor();
    // The next ask for the list is held until the file has grown, then let through.
    const held = new Promise<() => Promise<void>>((resolve) => {
      void page.route('**/api/runs', (route) => resolve(() => route.continue()));
    });
    const release = await held;
    const loads = Number(await page.locator('#runs').getAttribute('data-loads'));
    appendFileSync(
      join(root, 'live', 'results.jsonl'),
      JSON.stringify(makeRecord(SMALL_CONFIG, 6, 0, 'm', 'oracle')) + '\n',
    );
    await page.unroute('**/api/runs');
    await release();
    await page.locator(`#runs[data-loads="${loads + 1}"]`).waitFor();
    expect(await page.locator('#runs tbody tr[data-run="live"] .progress').textContent()).toBe('7 / 50');
  });

  it('compares two runs, and opens a task side by side', async () => {
    await page.goto(`${server.url}#/compare/a/b`);
    await page.locator('#comparison', { hasText: 'paired differences' }).waitFor();
    await page.locator('#diff-list a').first().click();
    await page.locator('#side-a .reply').waitFor();
    await page.locator('#side-b .reply').waitFor();
    expect(await page.locator('#side-a .ledger').count()).toBe(1);
    expect(await page.locator('#side-b .ledger').count()).toBe(1);
  });

  it('picks two runs from the list to compare', async () => {
    await page.goto(server.url);
    await page.locator('#runs tbody tr').nth(2).waitFor();
    await page.locator('#runs input[data-run="a"]').check();
    await page.locator('#runs input[data-run="b"]').check();
    await page.locator('#compare-link', { hasText: 'compare the two runs picked' }).click();
    await page.locator('#comparison', { hasText: 'paired differences' }).waitFor();
  });
});

describe.skipIf(!hasChromium)('a sweep in bas view, in headless chromium', () => {
  let sweepRoot: string;
  let sweepServer: RunningViewServer;
  let page: Page;
  const offsite: string[] = [];
  const errors: string[] = [];

  beforeAll(async () => {
    sweepRoot = tempDir('bas-view-sweep-');
    const sw = join(sweepRoot, 'sw');
    // Two points done, the third not started yet (its folder is not there).
    writeRun(join(sw, 'rows-12'), { n: 20, model: 'builtin:oracle', choose: (i) => (i % 4 ? 'oracle' : 'blanket') });
    writeRun(join(sw, 'rows-24'), { n: 20, model: 'builtin:oracle', choose: (i) => (i % 2 ? 'oracle' : 'blanket') });
    writeSweepPlan(sw, [12, 24, 36]);
    sweepServer = await startViewServer({
      root: sweepRoot,
      port: 0,
      host: '127.0.0.1',
      token: null,
      maxConnections: 64,
    });
    page = await watchedPage(sweepServer.url, offsite, errors);
  });

  afterAll(async () => {
    expect(offsite).toEqual([]);
    expect(errors).toEqual([]);
    await page?.close();
    await sweepServer?.close();
  });

  it('lists the sweep with its status, opens it as bas sweep shows it, and links each point to its run', async () => {
    await page.goto(sweepServer.url);
    const row = page.locator('#sweeps tr', { hasText: 'sw' });
    await row.locator('td', { hasText: '2 of 3' }).waitFor();
    expect(await row.locator('.status-incomplete').textContent()).toBe('incomplete');
    await row.locator('a').click();
    await page.waitForURL(/#\/sweep\/sw$/);
    await page.locator('#sweep-table', { hasText: 'sweep in sw' }).waitFor();
    expect(await page.locator('#sweep-table').textContent()).toContain('model builtin:oracle');
    expect(await page.locator('#sweep-settings th').first().textContent()).toBe('tasks');
    const points = page.locator('#sweep-points tr');
    expect(await points.count()).toBe(4);
    expect(await points.nth(3).textContent()).toContain('not started');
    expect(await points.nth(3).locator('a').count()).toBe(0);
    await points.nth(2).locator('a', { hasText: 'sw/rows-24' }).click();
    await page.waitForURL(/#\/run\/sw\/rows-24$/);
    await page.locator('#report', { hasText: 'reward distribution' }).waitFor();
  });

  it('shows the same sweep from a bundle opened from disk, at the same address', async () => {
    const { writeBundle } = await import('../../src/view/bundle.js');
    const file = join(tempDir('bas-view-sweep-bundle-'), 'bundle.html');
    await writeBundle(sweepRoot, file);
    const local = await browser!.newPage();
    const seen: string[] = [];
    await local.route('**/*', (route) =>
      route.request().url().startsWith('file:') ? route.continue() : (seen.push(route.request().url()), route.abort()),
    );
    local.on('pageerror', (e) => seen.push(String(e)));
    await local.goto(`file://${file}#/sweep/sw`);
    await local.locator('#sweep-table', { hasText: 'sweep in sw' }).waitFor();
    expect(await local.locator('#sweep-points tr').count()).toBe(4);
    await local.locator('#sweep-points a', { hasText: 'sw/rows-24' }).click();
    await local.locator('#report', { hasText: 'reward distribution' }).waitFor();
    expect(seen).toEqual([]);
    await local.close();
  });
});
