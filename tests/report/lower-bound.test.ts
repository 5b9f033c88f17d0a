/**
 * Issue 36 §4: a cost (and a token total) that may be incomplete is shown as "at least"
 * wherever it is shown: `bas report` text, JSON and HTML, bas view's run list and run page
 * (the report's text), and the leaderboard (text, CSV, JSON, HTML). Two causes: requests in
 * flight at a stop, and replies billed without usage (charged at their worst case).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Catalog } from '../../src/view/catalog.js';
import { writeRun } from './make-run.js';
import { bas, tempDir } from '../support/cli.js';

const PRICES = { in: 1, out: 10 };
const session = (spend: Record<string, unknown>) => ({
  started_at: '2026-01-01T00:00:00.000Z',
  ended_at: '2026-01-01T00:01:00.000Z',
  rollouts: 20,
  spend: {
    unrecorded: { prompt: 0, completion: 0, total: 0, reasoning: 0, cached: 0, lines: 0 },
    in_flight: { requests: 0, prompt: 0, completion: 0 },
    ...spend,
  },
});

/** Three runs: one whole, one stopped with requests in flight, one with replies billed without usage. */
function runs(): { root: string; whole: string; flight: string; unreported: string } {
  const root = tempDir('bas-lower-bound-');
  const [whole, flight, unreported] = ['whole', 'flight', 'unreported'].map((k) => join(root, k)) as [
    string,
    string,
    string,
  ];
  writeRun(whole, { n: 20, model: 'm1', choose: () => 'oracle', runJson: { prices: PRICES, sessions: [session({})] } });
  writeRun(flight, {
    n: 20,
    model: 'm2',
    choose: () => 'oracle',
    runJson: { prices: PRICES, sessions: [session({ in_flight: { requests: 8, prompt: 16_000, completion: 2_400 } })] },
  });
  writeRun(unreported, {
    n: 20,
    model: 'm3',
    choose: () => 'oracle',
    runJson: { prices: PRICES, sessions: [session({ unreported: { requests: 5, prompt: 9_000, completion: 1_500 } })] },
  });
  return { root, whole, flight, unreported };
}

describe('a cost that may be incomplete says "at least" (issue 36 §4)', () => {
  it('bas report: text, JSON and HTML', async () => {
    const { whole, flight, unreported } = runs();
    for (const [dir, why] of [
      [flight, '8 in flight at the stop, up to about'],
      [unreported, '5 billed without usage, up to about'],
    ] as const) {
      const text = (await bas(['report', dir])).stdout;
      expect(text).toMatch(/│ total, at least\s+│ \$\d/);
      expect(text).toContain(why);
      expect(text).toMatch(/total tokens, at least/);
      const json = JSON.parse((await bas(['report', dir, '--json'])).stdout);
      expect(json.cost.lower_bound).toBe(true);
      expect(json.cost.incomplete).toMatch(/in flight at a stop|without usage/);
      const html = join(dir, 'r.html');
      await bas(['report', dir, '--html', html]);
      expect(readFileSync(html, 'utf8')).toContain('cost, total, at least');
    }
    const text = (await bas(['report', whole])).stdout;
    expect(text).not.toContain('at least');
    expect(JSON.parse((await bas(['report', whole, '--json'])).stdout).cost.lower_bound).toBe(false);
  });

  it("bas view's run list", async () => {
    const { root } = runs();
    const catalog = new Catalog(root);
    for (const id of ['whole', 'flight', 'unreported']) await (await catalog.run(id))!.summary(true);
    const rows = (await catalog.list()).runs;
    const at = (id: string) => rows.find((r) => r.id === id)!.figures!.cost_at_least;
    expect([at('whole'), at('flight'), at('unreported')]).toEqual([false, true, true]);
  });

  it('the leaderboard: text, CSV, JSON and HTML', async () => {
    const { whole, flight, unreported } = runs();
    const dirs = [whole, flight, unreported];
    const text = (await bas(['leaderboard', ...dirs])).stdout;
    expect(text.match(/at least/g)?.length).toBe(4);
    const csv = (await bas(['leaderboard', ...dirs, '--csv'])).stdout;
    const [head, ...lines] = csv.trim().split('\n');
    const col = head!.split(',').indexOf('cost_is_lower_bound');
    expect(col).toBeGreaterThan(0);
    expect(lines.map((l) => l.split(',')[col]).sort()).toEqual(['no', 'yes', 'yes']);
    const json = JSON.parse((await bas(['leaderboard', ...dirs, '--json'])).stdout);
    const bounds = json.groups[0].runs.map((r: { cost: { lower_bound: boolean } }) => r.cost.lower_bound);
    expect(bounds.sort()).toEqual([false, true, true]);
    const htmlFile = join(tempDir(), 'lb.html');
    await bas(['leaderboard', ...dirs, '--html', htmlFile]);
    expect(readFileSync(htmlFile, 'utf8').match(/at least/g)?.length).toBeGreaterThanOrEqual(4);
  });
});
