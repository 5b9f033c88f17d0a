/**
 * `--shard auto`: the shard from a Slurm array job or a Kubernetes indexed job, and a clear
 * error for every environment that does not name one shard of one array.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseShard, shardFromEnv } from '../../src/settings/shard.js';
import { bas } from '../support/cli.js';

const slurm = (id: number, min: number, max: number, extra: Record<string, string> = {}) => ({
  SLURM_ARRAY_TASK_ID: String(id),
  SLURM_ARRAY_TASK_MIN: String(min),
  SLURM_ARRAY_TASK_MAX: String(max),
  ...extra,
});

describe('--shard auto reads the job array', () => {
  it.each([
    ['Slurm --array=1-4, task 1', slurm(1, 1, 4, { SLURM_ARRAY_TASK_COUNT: '4' }), '1/4'],
    ['Slurm --array=1-4, task 4', slurm(4, 1, 4, { SLURM_ARRAY_TASK_COUNT: '4' }), '4/4'],
    ['Slurm --array=0-7, task 0', slurm(0, 0, 7, { SLURM_ARRAY_TASK_COUNT: '8' }), '1/8'],
    ['Slurm --array=0-7, task 5, no count', slurm(5, 0, 7), '6/8'],
    ['Slurm --array=1-7:2, task 5', slurm(5, 1, 7, { SLURM_ARRAY_TASK_STEP: '2', SLURM_ARRAY_TASK_COUNT: '4' }), '3/4'],
    [
      'Slurm count and min only',
      { SLURM_ARRAY_TASK_ID: '12', SLURM_ARRAY_TASK_MIN: '10', SLURM_ARRAY_TASK_COUNT: '3' },
      '3/3',
    ],
    ['Kubernetes index 0 of 3', { JOB_COMPLETION_INDEX: '0', BAS_SHARD_COUNT: '3' }, '1/3'],
    ['Kubernetes index 2 of 3', { JOB_COMPLETION_INDEX: '2', BAS_SHARD_COUNT: '3' }, '3/3'],
  ])('%s', (_name, env, want) => {
    const s = shardFromEnv(env);
    expect(`${s.index}/${s.count}`).toBe(want);
    expect(parseShard('auto', '--shard', env)).toEqual(s);
  });

  it.each([
    ['no job array', {}, /not in a job array: neither SLURM_ARRAY_TASK_ID \(Slurm\) nor JOB_COMPLETION_INDEX/],
    ['Slurm without bounds', { SLURM_ARRAY_TASK_ID: '3' }, /SLURM_ARRAY_TASK_MIN is not/],
    [
      'Slurm without count or max',
      { SLURM_ARRAY_TASK_ID: '3', SLURM_ARRAY_TASK_MIN: '1' },
      /neither SLURM_ARRAY_TASK_COUNT nor SLURM_ARRAY_TASK_MAX/,
    ],
    [
      'Slurm array given as a list',
      slurm(5, 1, 9, { SLURM_ARRAY_TASK_COUNT: '3' }),
      /COUNT is 3 but the array 1-9:1 holds 9 tasks; an array given as a list/,
    ],
    ['Slurm id outside the array', slurm(9, 1, 4), /shard 9\/4, which is not 1 <= I <= N/],
    ['Slurm id below the array', slurm(0, 1, 4), /SLURM_ARRAY_TASK_ID 0 is not in the array that starts at 1/],
    [
      'Slurm id off the step',
      slurm(2, 1, 7, { SLURM_ARRAY_TASK_STEP: '2' }),
      /not in the array that starts at 1 with step 2/,
    ],
    ['Slurm max off the step', slurm(1, 1, 6, { SLURM_ARRAY_TASK_STEP: '2' }), /1-6:2 is not a range of whole steps/],
    ['Slurm step 0', slurm(1, 1, 4, { SLURM_ARRAY_TASK_STEP: '0' }), /STEP must be at least 1/],
    [
      'Slurm id not a number',
      { SLURM_ARRAY_TASK_ID: 'x', SLURM_ARRAY_TASK_MIN: '1' },
      /SLURM_ARRAY_TASK_ID must be a whole number, got "x"/,
    ],
    ['Kubernetes without a count', { JOB_COMPLETION_INDEX: '1' }, /BAS_SHARD_COUNT is not: set it in the pod template/],
    ['Kubernetes index past the count', { JOB_COMPLETION_INDEX: '3', BAS_SHARD_COUNT: '3' }, /shard 4\/3/],
    ['Kubernetes count 0', { JOB_COMPLETION_INDEX: '0', BAS_SHARD_COUNT: '0' }, /shard 1\/0/],
    ['a count without an index', { BAS_SHARD_COUNT: '4' }, /BAS_SHARD_COUNT is set but JOB_COMPLETION_INDEX is not/],
    [
      'both schedulers',
      { ...slurm(1, 1, 4), JOB_COMPLETION_INDEX: '0', BAS_SHARD_COUNT: '4' },
      /both SLURM_ARRAY_TASK_ID and JOB_COMPLETION_INDEX are set/,
    ],
  ])('%s is a clear error', (_name, env, message) => {
    expect(() => shardFromEnv(env)).toThrow(message);
  });

  it('the CLI takes the shard from the environment, records it, and refuses a bad environment in one line', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'bas-shard-auto-')), 'run');
    const env = { JOB_COMPLETION_INDEX: '1', BAS_SHARD_COUNT: '3' };
    const ok = await bas(
      ['eval', '-m', 'builtin:oracle', '-n', '7', '--shard', 'auto', '--no-progress', '--output', out],
      {
        env,
      },
    );
    expect(ok.code).toBe(0);
    const run = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')) as { shard: unknown };
    expect(run.shard).toEqual({ index: 2, count: 3 });
    // Tasks 1 and 4 of 0..6: the second of three strided slices.
    const lines = readFileSync(join(out, 'results.jsonl'), 'utf8').trim().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as { index: number }).index).sort()).toEqual([1, 4]);
    const bad = await bas(['eval', '-m', 'builtin:oracle', '-n', '7', '--shard', 'auto', '--no-progress'], {
      env: { JOB_COMPLETION_INDEX: '1' },
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      "bas: --shard auto: JOB_COMPLETION_INDEX is set but BAS_SHARD_COUNT is not: set it in the pod template to the job's completions\n",
    );
  });
});
