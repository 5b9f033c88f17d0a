/**
 * A merged run's error budget does not depend on the order of the inputs: shards run under
 * different --max-error-rate values merge, in any order, into a run recording the strictest.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bas, tempDir } from '../support/cli.js';

describe('merge and max_error_rate', () => {
  it('records the strictest of the shards, whichever order they are given in', async () => {
    const shards: string[] = [];
    for (const [shard, rate] of [
      ['1/2', '0.5'],
      ['2/2', '0.05'],
    ] as const) {
      const dir = join(tempDir(), 'shard');
      const args = ['eval', '-m', 'builtin:oracle', '-n', '4', '--shard', shard, '--max-error-rate', rate];
      const r = await bas([...args, '--output', dir, '--no-progress']);
      expect(r.code, r.stderr).toBe(0);
      shards.push(dir);
    }
    const rates: unknown[] = [];
    for (const order of [shards, [...shards].reverse()]) {
      const out = join(tempDir(), 'merged');
      const r = await bas(['merge', ...order, '--output', out]);
      expect(r.code, r.stderr).toBe(0);
      rates.push(JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')).max_error_rate);
    }
    expect(rates).toEqual([0.05, 0.05]);
  }, 60_000);
});
