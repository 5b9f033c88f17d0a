import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bas, tempDir } from '../support/cli.js';

// The merge warning used to say `--resume` could not fill a merged run with a shard missing;
// it can, and the warning now gives that command beside merging again.
describe('a merge with a shard missing', () => {
  it('names the resume command, and that resume makes the merged run complete', async () => {
    const dir = tempDir();
    const shard = (i: number) => join(dir, `shard-${i}`);
    for (const i of [1, 2]) {
      const r = await bas([
        'eval',
        '-m',
        'builtin:oracle',
        '-n',
        '6',
        '--shard',
        `${i}/3`,
        '--output',
        shard(i),
        '--no-progress',
        '--json',
      ]);
      expect(r.code, r.stderr).toBe(0);
    }
    const merged = join(dir, 'merged');
    const m = await bas(['merge', shard(1), shard(2), '--output', merged, '--json']);
    expect(m.code, m.stderr).toBe(0);
    expect(m.stderr).toContain('4 of 6 rollouts are in the inputs (2 missing)');
    expect(m.stderr).toContain(`bas eval --resume ${merged}`);
    expect(m.stderr).not.toContain('cannot fill');

    const r = await bas(['eval', '--resume', merged, '--no-progress', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const info = JSON.parse(readFileSync(join(merged, 'run.json'), 'utf8'));
    expect(info.status).toBe('complete');
    expect(info.summary.counts.rollouts).toBe(6);
    expect(info.summary.counts.tasks).toBe(6);
  });
});

describe('bas merge of one folder twice', () => {
  it('says so in the house form, "bas: merge: …", not "bas: bas merge: …"', async () => {
    const dir = tempDir();
    const run = join(dir, 'x');
    expect((await bas(['eval', '-m', 'builtin:oracle', '-n', '2', '--output', run, '--no-progress'])).code).toBe(0);
    const r = await bas(['merge', run, run, '--output', join(dir, 'merged')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`bas: merge: ${run} is given twice (as ${run}): give each run folder once\n`);
  });
});
