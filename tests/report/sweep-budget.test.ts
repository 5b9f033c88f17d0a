/**
 * A sweep over the reasoning budget (`--reasoning-effort` or `--max-tokens` values as its
 * axis): each point sends its own budget, the table, JSON, CSV, HTML and SVG are drawn against
 * it, sweep.json records the axis, and a resume keeps it. Against `bas serve` acting as a
 * reasoning model, the budget really changes what is sent, thought and scored.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bas, serve, tempDir, type Served } from '../support/cli.js';

const KEY = { OPENAI_API_KEY: 'k' };
let root: string;
let thinker: Served;

beforeAll(async () => {
  root = tempDir('bas-sweep-budget-');
  // Thinks 400 tokens at reasoning effort medium (none sent: the same), 200 at low, 800 at high.
  thinker = await serve(['--reasoning-tokens', '400']);
});
afterAll(async () => {
  await thinker.stop();
  rmSync(root, { recursive: true, force: true });
});

interface Stats {
  requests: number;
  reasoningTokens: number;
}
const stats = async (): Promise<Stats> => (await (await fetch(`${thinker.url}/bas/stats`)).json()) as Stats;

interface Point {
  model: string;
  num_transactions: number;
  reasoning_effort: string | null;
  max_tokens: number | null;
  completed: number;
  measures: Record<string, { mean: number }>;
}

describe('bas sweep over the reasoning effort, built-in models', () => {
  const dir = () => join(root, 'effort');

  it('runs one point per effort and model, each sending its own effort, with the axis recorded', async () => {
    const svg = join(root, 'effort.svg');
    const html = join(root, 'effort.html');
    const args = ['sweep', '-m', 'builtin:oracle', '-m', 'builtin:silent', '-n', '4'];
    const r = await bas([...args, '--reasoning-effort', 'high,low', '--num-transactions', '12', '--output', dir()]);
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(dir()).sort()).toEqual([
      'builtin-oracle--effort-high',
      'builtin-oracle--effort-low',
      'builtin-silent--effort-high',
      'builtin-silent--effort-low',
      'sweep.json',
    ]);
    const plan = JSON.parse(readFileSync(join(dir(), 'sweep.json'), 'utf8'));
    expect(plan.axis).toBe('reasoning_effort');
    expect(plan.flags.reasoningEffort).toBeUndefined();
    // Points run from the smallest budget, whatever the order given.
    expect(plan.points.map((p: { reasoning_effort: string }) => p.reasoning_effort)).toEqual([
      'low',
      'low',
      'high',
      'high',
    ]);
    for (const effort of ['low', 'high']) {
      const run = JSON.parse(readFileSync(join(dir(), `builtin-oracle--effort-${effort}`, 'run.json'), 'utf8'));
      expect(run.sampling.reasoning_effort).toBe(effort);
      expect(run.task.num_transactions).toBe(12);
    }
    // The text is against the effort, in the effort's order (low before high), rows a setting.
    expect(r.stdout).toMatch(/against\s+reasoning\s+effort/);
    expect(r.stdout).toMatch(/12 rows/);
    expect(r.stdout).toMatch(/sampling: temperature not sent · max tokens not sent · reasoning effort: the\s+axis\n/);
    const oracle = r.stdout.split('model builtin:silent')[0]!;
    expect(oracle.indexOf('│       low │')).toBeLessThan(oracle.indexOf('│      high │'));
    expect(r.stderr).toContain('[1/4] builtin:oracle, reasoning effort low');

    const again = await bas(['sweep', '--resume', dir(), '--svg', svg, '--html', html]);
    expect(again.code, again.stderr).toBe(0);
    const figure = readFileSync(svg, 'utf8');
    expect(figure).toContain('>reasoning effort<');
    expect(figure).toMatch(/>low<\/text>[\s\S]*>high<\/text>/);
    expect(figure).not.toContain('log scale');
    expect(readFileSync(html, 'utf8')).toContain('Curves against the reasoning budget');
  });

  it('--json and --csv carry the axis and each point’s budget', async () => {
    const j = JSON.parse((await bas(['sweep', '--resume', dir(), '--json'])).stdout) as {
      axis: string;
      points: Point[];
    };
    expect(j.axis).toBe('reasoning_effort');
    expect(j.points.map((p) => [p.model, p.reasoning_effort])).toEqual([
      ['builtin:oracle', 'low'],
      ['builtin:oracle', 'high'],
      ['builtin:silent', 'low'],
      ['builtin:silent', 'high'],
    ]);
    const csv = (await bas(['sweep', '--resume', dir(), '--csv'])).stdout.trim().split('\n');
    const head = csv[0]!.split(',');
    const rows = csv.slice(1).map((l) => Object.fromEntries(l.split(',').map((v, i) => [head[i], v])));
    expect(rows.map((x) => [x.reasoning_effort, x.axis, x.rows])).toEqual([
      ['low', 'reasoning_effort', '12'],
      ['high', 'reasoning_effort', '12'],
      ['low', 'reasoning_effort', '12'],
      ['high', 'reasoning_effort', '12'],
    ]);
  });

  it('--resume finishes a cut-off point with its own effort', async () => {
    const results = join(dir(), 'builtin-silent--effort-low', 'results.jsonl');
    writeFileSync(results, readFileSync(results, 'utf8').split('\n').slice(0, 2).join('\n') + '\n');
    const r = await bas(['sweep', '--resume', dir(), '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('builtin:silent, reasoning effort low (resumed)');
    expect((JSON.parse(r.stdout) as { points: Point[] }).points.map((p) => p.completed)).toEqual([4, 4, 4, 4]);
  });

  it('refuses two axes at once, and a sweep with no points, in one line', async () => {
    const two = await bas([
      'sweep',
      '-m',
      'builtin:oracle',
      '--reasoning-effort',
      'low,high',
      '--max-tokens',
      '100,200',
      '--output',
      join(root, 'two'),
    ]);
    expect(two.code).toBe(2);
    expect(two.stderr.trim().split('\n')).toHaveLength(1);
    expect(two.stderr).toContain('a sweep has one axis, but --reasoning-effort and --max-tokens each list several');
    const none = await bas(['sweep', '-m', 'builtin:oracle', '--output', join(root, 'none')]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--reasoning-effort low,medium,high');
    const bad = await bas(['sweep', '-m', 'builtin:oracle', '--reasoning-effort', 'low,huge']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--reasoning-effort must be one of');
  });
});

describe('bas sweep over the reasoning budget against a reasoning model (bas serve)', () => {
  const base = ['-m', 'r1', '--base-url', '', '-n', '6', '--no-progress'];
  const args = () => base.map((a) => (a === '' ? thinker.url : a));

  it('--max-tokens: a limit below the thinking plus the reply cuts every reply; a larger one answers', async () => {
    const dir = join(root, 'tokens');
    const r = await bas(['sweep', ...args(), '--max-tokens', '2000,450', '--output', dir, '--json'], { env: KEY });
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout) as { axis: string; points: Point[] };
    expect(j.axis).toBe('max_tokens');
    expect(j.points.map((p) => [p.max_tokens, p.measures.reward!.mean])).toEqual([
      [450, 0],
      [2000, 1],
    ]);
    const cut = readFileSync(join(dir, 'max-tokens-450', 'results.jsonl'), 'utf8')
      .trim()
      .split('\n');
    for (const line of cut) expect(JSON.parse(line)).toMatchObject({ finish_reason: 'length' });
    const run = JSON.parse(readFileSync(join(dir, 'max-tokens-2000', 'run.json'), 'utf8'));
    expect(run.sampling.max_tokens).toBe(2000);
  });

  it('--reasoning-effort: the model thinks as each point asks (200, 800 tokens a reply)', async () => {
    const before = await stats();
    const dir = join(root, 'thinking');
    const r = await bas(['sweep', ...args(), '--reasoning-effort', 'low,high', '--output', dir, '--json'], {
      env: KEY,
    });
    expect(r.code, r.stderr).toBe(0);
    const after = await stats();
    expect(after.requests - before.requests).toBe(12);
    expect(after.reasoningTokens - before.reasoningTokens).toBe(6 * 200 + 6 * 800);
    for (const [effort, thought] of [
      ['low', 200],
      ['high', 800],
    ] as const) {
      const report = JSON.parse((await bas(['report', join(dir, `effort-${effort}`), '--json'])).stdout);
      expect(report.summary.tokens.reasoning).toBe(6 * thought);
    }
  });
});
