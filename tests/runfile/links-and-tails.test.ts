/**
 * A run folder that cannot be turned against its user: bas never follows a symbolic link for
 * a file it keeps in a run folder (results.jsonl, run.json, the lock, sweep.json, a merged or
 * scored folder), and one rule decides what a bad last line of results.jsonl is, for the
 * reader and for the cut a resume makes alike. Uses the built CLI (dist/).
 */
import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bas, tempDir } from '../support/cli.js';

async function oracleRun(n = 3): Promise<string> {
  const dir = join(tempDir(), 'run');
  const r = await bas(['eval', '-m', 'builtin:oracle', '-n', String(n), '--output', dir, '--no-progress']);
  expect(r.code).toBe(0);
  return dir;
}

const resultsOf = (dir: string): string => readFileSync(join(dir, 'results.jsonl'), 'utf8');

describe('symbolic links in a run folder', () => {
  it('a resume through a results.jsonl that is a link is refused, and the file it points to is left as it was', async () => {
    const dir = await oracleRun();
    const lines = resultsOf(dir).trim().split('\n');
    // The run as it was cut short: two records; the link's target is outside the folder.
    const outside = join(tempDir(), 'precious.txt');
    writeFileSync(outside, `${lines[0]}\n${lines[1]}\n{"note": "not mine, no newline"`);
    const before = readFileSync(outside, 'utf8');
    const { rmSync } = await import('node:fs');
    rmSync(join(dir, 'results.jsonl'));
    symlinkSync(outside, join(dir, 'results.jsonl'));
    const r = await bas(['eval', '--resume', dir, '--no-progress']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/results\.jsonl is a symbolic link: bas never follows a link/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(readFileSync(outside, 'utf8')).toBe(before);
    expect(existsSync(join(dir, '.bas.lock'))).toBe(false);
  }, 60_000);

  it('a report of a folder whose results.jsonl is a link is refused, naming the path', async () => {
    const dir = await oracleRun(2);
    const real = join(tempDir(), 'elsewhere.jsonl');
    writeFileSync(real, resultsOf(dir));
    const { rmSync } = await import('node:fs');
    rmSync(join(dir, 'results.jsonl'));
    symlinkSync(real, join(dir, 'results.jsonl'));
    const r = await bas(['report', dir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${join(dir, 'results.jsonl')} is a symbolic link`);
  }, 30_000);

  it('a run.json that is a link is neither read nor written through', async () => {
    const dir = await oracleRun(2);
    const outside = join(tempDir(), 'run-copy.json');
    const text = readFileSync(join(dir, 'run.json'), 'utf8');
    writeFileSync(outside, text.replace('"complete"', '"interrupted"'));
    const { rmSync } = await import('node:fs');
    rmSync(join(dir, 'run.json'));
    symlinkSync(outside, join(dir, 'run.json'));
    const before = readFileSync(outside, 'utf8');
    const r = await bas(['eval', '--resume', dir, '--no-progress']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/run\.json is a symbolic link/);
    expect(readFileSync(outside, 'utf8')).toBe(before);
    expect(lstatSync(join(dir, 'run.json')).isSymbolicLink()).toBe(true);
  }, 60_000);

  it('a lock that is a link is refused, not taken over or removed', async () => {
    const dir = await oracleRun(2);
    // One rollout left to do, so the resume takes the folder.
    writeFileSync(join(dir, 'results.jsonl'), `${resultsOf(dir).split('\n')[0]}\n`);
    const outside = join(tempDir(), 'some-file');
    writeFileSync(outside, 'user data\n');
    symlinkSync(outside, join(dir, '.bas.lock'));
    const r = await bas(['eval', '--resume', dir, '--no-progress']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/\.bas\.lock is a symbolic link/);
    expect(readFileSync(outside, 'utf8')).toBe('user data\n');
    expect(lstatSync(join(dir, '.bas.lock')).isSymbolicLink()).toBe(true);
  }, 60_000);

  it('a new run whose results.jsonl name is a dangling link is refused, and nothing is created at its target', async () => {
    const dir = join(tempDir(), 'new');
    mkdirSync(dir);
    const target = join(tempDir(), 'created-by-nobody.jsonl');
    symlinkSync(target, join(dir, 'results.jsonl'));
    const r = await bas(['eval', '-m', 'builtin:oracle', '-n', '2', '--output', dir, '--no-progress']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/results\.jsonl is a symbolic link/);
    expect(existsSync(target)).toBe(false);
  }, 30_000);

  it('merge refuses an output folder that is a link', async () => {
    const shards = [];
    for (const shard of ['1/2', '2/2']) {
      const dir = join(tempDir(), 'shard');
      const args = ['eval', '-m', 'builtin:oracle', '-n', '4', '--shard', shard, '--output', dir, '--no-progress'];
      expect((await bas(args)).code).toBe(0);
      shards.push(dir);
    }
    const empty = join(tempDir(), 'empty');
    mkdirSync(empty);
    const out = join(tempDir(), 'merged');
    symlinkSync(empty, out);
    const r = await bas(['merge', ...shards, '--output', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--output .*merged is a symbolic link/);
    expect(existsSync(join(empty, 'results.jsonl'))).toBe(false);
  }, 30_000);
});

describe('one rule for a bad last line', () => {
  it('a complete but invalid last line is refused by the report and the resume alike, and the resume appends nothing', async () => {
    const dir = await oracleRun();
    const lines = resultsOf(dir).trim().split('\n');
    const damaged = `${lines[0]}\n${lines[1]}\n{"index":2,"rollout":0,"reward":\n`;
    writeFileSync(join(dir, 'results.jsonl'), damaged);
    const report = await bas(['report', dir]);
    expect(report.code).toBe(2);
    expect(report.stderr).toMatch(/line 3 is not valid JSON .*has no newline at its end, and this one has/);
    const resume = await bas(['eval', '--resume', dir, '--no-progress']);
    expect(resume.code).toBe(2);
    expect(resume.stderr).toMatch(/line 3 is not valid JSON/);
    expect(resultsOf(dir)).toBe(damaged);
  }, 60_000);

  it('a last line cut off without its newline is skipped by the report and cut by the resume, which then completes the run', async () => {
    const dir = await oracleRun();
    const lines = resultsOf(dir).trim().split('\n');
    writeFileSync(join(dir, 'results.jsonl'), `${lines[0]}\n${lines[1]}\n{"index":2,"rollout":0,"reward":`);
    const report = await bas(['report', dir]);
    expect(report.stderr).toMatch(/skipped line 3, cut off mid-write/);
    const resume = await bas(['eval', '--resume', dir, '--no-progress']);
    expect(resume.code).toBe(0);
    const after = resultsOf(dir).trim().split('\n');
    expect(after).toHaveLength(3);
    expect(after.map((l) => JSON.parse(l).index)).toEqual([0, 1, 2]);
  }, 60_000);

  it('a whole record whose newline was never written is kept by both: counted by the report, given its newline by the resume', async () => {
    const dir = await oracleRun();
    const lines = resultsOf(dir).trim().split('\n');
    // Task 1 is still to do, so the resume takes the folder and appends.
    writeFileSync(join(dir, 'results.jsonl'), `${lines[0]}\n${lines[2]}`);
    const report = await bas(['report', dir, '--json']);
    expect(report.code).toBe(0);
    expect(report.stderr).not.toMatch(/skipped/);
    expect(JSON.parse(report.stdout).summary.counts.completed).toBe(2);
    const resume = await bas(['eval', '--resume', dir, '--no-progress']);
    expect(resume.code).toBe(0);
    const after = resultsOf(dir).split('\n');
    expect(after.slice(0, 2)).toEqual([lines[0], lines[2]]);
    expect(after.slice(2).map((l) => (l === '' ? null : JSON.parse(l).index))).toEqual([1, null]);
  }, 60_000);
});
