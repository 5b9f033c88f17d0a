import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GENERATOR_VERSION } from '../../src/task/generate.js';
import { bas, tempDir } from '../support/cli.js';

/** Rewrites a run folder's run.json as an older bas would have left it (no generator recorded). */
function makeOld(dir: string): void {
  const file = join(dir, 'run.json');
  const info = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  delete info.generator;
  writeFileSync(file, JSON.stringify(info));
}

describe('the task generator version', () => {
  it('is recorded in run.json, and runs of another generator are never mixed', () => {
    const dir = tempDir();
    const run = (name: string, extra: string[] = []) =>
      bas(['eval', '-m', 'builtin:oracle', '-n', '4', '--output', join(dir, name), '--no-progress', '--json', ...extra]);
    expect(run('new').code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'new', 'run.json'), 'utf8')).generator).toBe(GENERATOR_VERSION);

    // --resume refuses a run whose tasks came from another generator.
    expect(run('old').code).toBe(0);
    makeOld(join(dir, 'old'));
    const resumed = bas(['eval', '--resume', join(dir, 'old'), '--no-progress']);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toMatch(/made with task generator 1, and this bas \(.*\) has generator 2/);

    // merge refuses to join shards of different generators.
    expect(run('s1', ['--shard', '1/2']).code).toBe(0);
    expect(run('s2', ['--shard', '2/2']).code).toBe(0);
    makeOld(join(dir, 's2'));
    const merged = bas(['merge', join(dir, 's1'), join(dir, 's2'), '--output', join(dir, 'm')]);
    expect(merged.code).toBe(2);
    expect(merged.stderr).toMatch(/task generator 1, .* with 2: their tasks differ/);

    // compare shows both, but does not pair tasks across generators.
    const compared = JSON.parse(bas(['compare', join(dir, 'new'), join(dir, 'old'), '--json']).stdout);
    expect(compared.pairings[0]).toMatchObject({ comparable: false });
    expect(compared.pairings[0].note).toMatch(/task generator 1 .* with 2/);
  });
});
