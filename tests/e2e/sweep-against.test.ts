/**
 * A sweep's flags leave out --against, --until and --margin (each point runs its own tasks),
 * but a config file's keys reach every point: such a sweep is refused before anything runs,
 * instead of running every task while each point's run.json claims the rule.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bas, tempDir } from '../support/cli.js';

describe('bas sweep with a config that compares against a run', () => {
  it('is refused in one line naming against, and writes no point', async () => {
    const dir = tempDir();
    const base = join(dir, 'base');
    expect(
      (await bas(['eval', '-m', 'builtin:silent', '-n', '20', '--num-transactions', '12', '--output', base])).code,
    ).toBe(0);
    const config = join(dir, 'c.toml');
    writeFileSync(config, `against = ${JSON.stringify(base)}\nuntil = "decided"\n[task]\nnum_transactions = 12\n`);
    const out = join(dir, 'sweep');
    const r = await bas(['sweep', `@${config}`, '-m', 'builtin:oracle', '--max-tokens', '1000,2000', '--output', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/a sweep does not take against/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(join(out, 'sweep.json'))).toBe(false);
  });
});
