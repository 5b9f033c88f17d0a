/**
 * `--max-total-tokens` in a sweep applies to each run of the grid on its own (docs/sweep.md): a
 * run stopped at its budget does not stop the others, and the sweep ends with exit 4 naming it
 * and how to continue. It used to end with exit 0 as if every run had finished.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bas, serve, tempDir, type Served } from '../support/cli.js';
import { commandWords, resumed } from '../support/shell-words.js';

const servers: Served[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

describe('bas sweep with a budget', () => {
  it('gives each run the whole budget, runs every point, and exits 4 naming the runs it stopped', async () => {
    const s = await serve(['--policy', 'oracle']);
    servers.push(s);
    // A space in the folder: each resume printed is one a shell runs as printed.
    const out = join(tempDir(), 'a sweep');
    const limit = 9000;
    const r = await bas(
      [
        'sweep',
        '-m',
        'm',
        '--base-url',
        s.url,
        '-n',
        '20',
        '-c',
        '1',
        '--num-transactions',
        '6,12',
        '--max-tokens',
        '500',
        '--max-total-tokens',
        String(limit),
        '--output',
        out,
        '--no-progress',
      ],
      { env: { OPENAI_API_KEY: 'sk-test' } },
    );
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/2 of 2 runs stopped at their budget .* bas eval --resume .* --max-cost USD/);
    // Each stopped run's resume and the sweep's name their folders whole and the endpoint.
    const run = resumed(commandWords(r.stderr, 'eval'));
    expect(run.dir.startsWith(`${out}/`)).toBe(true);
    expect(run.flags.get('--base-url')).toBe(s.url);
    const sweep = resumed(commandWords(r.stderr, 'sweep'));
    expect(sweep).toMatchObject({ dir: out });
    expect(sweep.flags.get('--base-url')).toBe(s.url);
    const stats = (await (await fetch(`${s.url}/bas/stats`)).json()) as {
      promptTokens: number;
      completionTokens: number;
    };
    // each run kept its own budget: together at most twice it, and more than one run's
    expect(stats.promptTokens + stats.completionTokens).toBeLessThanOrEqual(2 * limit);
    expect(stats.promptTokens + stats.completionTokens).toBeGreaterThan(limit);
    const plan = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8'));
    expect(plan.points).toHaveLength(2);
  });

  it('a run stopped before its first rollout is shown empty, with exit 4, not refused as unreadable', async () => {
    const s = await serve(['--policy', 'oracle']);
    servers.push(s);
    const out = join(tempDir(), 'sweep');
    const args = ['-m', 'm', '--base-url', s.url, '-n', '3', '--num-transactions', '6,12', '--output', out];
    const r = await bas(['sweep', ...args, '--max-total-tokens', '10', '--no-progress', '--csv'], {
      env: { OPENAI_API_KEY: 'sk-test' },
    });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/2 of 2 runs stopped at their budget/);
    expect(r.stderr).not.toMatch(/holds no rollouts yet/);
    // Both points are in the table, each with nothing completed and its status.
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines.slice(1)) expect(line).toMatch(/^m,(6|12),.*,0,0,.*,budget,/);
    const stats = (await (await fetch(`${s.url}/bas/stats`)).json()) as { requests?: number };
    expect(stats.requests ?? 0).toBe(0);
  });
});
