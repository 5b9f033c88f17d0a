/**
 * A fresh `bas sweep` plans every point before any runs: each point runs with the sweep's
 * config file and flags, its own model, rows and folder; and a point whose settings a run
 * would refuse stops the sweep before anything is written.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bas, tempDir } from '../support/cli.js';

const runJson = (dir: string): Record<string, any> => JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));

describe('bas sweep', () => {
  it('runs each point with the config file, its model, its rows and its folder', async () => {
    const dir = tempDir();
    const config = join(dir, 'sweep.toml');
    writeFileSync(config, 'n = 2\n[task]\nseed = 11\n');
    const out = join(dir, 'sweep');
    const r = await bas([
      'sweep',
      '-m',
      'builtin:oracle',
      '-m',
      'builtin:blanket',
      '--num-transactions',
      '4,5',
      `@${config}`,
      '--output',
      out,
      '--no-progress',
    ]);
    expect(r.code, r.stderr).toBe(0);
    for (const [folder, model, rows] of [
      ['builtin-oracle--rows-4', 'builtin:oracle', 4],
      ['builtin-blanket--rows-4', 'builtin:blanket', 4],
      ['builtin-oracle--rows-5', 'builtin:oracle', 5],
      ['builtin-blanket--rows-5', 'builtin:blanket', 5],
    ] as const) {
      expect(runJson(join(out, folder))).toMatchObject({ model, n: 2, task: { num_transactions: rows, seed: 11 } });
    }
  });

  it("refuses a point's settings before anything is written", async () => {
    const out = join(tempDir(), 'sweep');
    const r = await bas([
      'sweep',
      '-m',
      'builtin:oracle',
      '-m',
      'builtin:nobody',
      '--num-transactions',
      '4',
      '--output',
      out,
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown built-in model "builtin:nobody"/);
    expect(existsSync(out)).toBe(false);
  });
});
