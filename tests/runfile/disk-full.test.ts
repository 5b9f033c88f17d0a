/**
 * A full disk, for real: each test mounts a 64 KiB tmpfs (which needs root, as in CI) and
 * fills it to the page before running bas. Every output must fail in one line naming the
 * file and "no space left on device", exit non-zero, leave the previous file as it was and
 * leave no temporary file behind. Where no tmpfs can be mounted, the tests are skipped with
 * a notice.
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bas } from '../support/cli.js';

const PAGE = 4096;

function tryMount(): string | null {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return null;
  const dir = mkdtempSync(join(tmpdir(), 'bas-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { stdio: 'ignore' });
    return dir;
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
}

const probe = tryMount();
if (probe) execFileSync('umount', [probe]);
else console.warn('disk-full tests skipped: cannot mount a tmpfs here (they need root on Linux, as in CI)');

const mounts: string[] = [];
afterEach(() => {
  for (const m of mounts.splice(0)) execFileSync('umount', [m]);
});

/** A fresh 64 KiB tmpfs. */
function smallDisk(): string {
  const dir = tryMount();
  if (!dir) throw new Error('mount failed');
  mounts.push(dir);
  return dir;
}

/** Fills `disk` with one-page files until it is full, then frees `pages` of them. */
function fill(disk: string, pages: number): void {
  const filler = join(disk, 'filler');
  mkdirSync(filler, { recursive: true });
  const made: string[] = [];
  for (let i = 0; ; i++) {
    const f = join(filler, String(i));
    try {
      writeFileSync(f, Buffer.alloc(PAGE, 1));
      made.push(f);
    } catch {
      rmSync(f, { force: true });
      break;
    }
  }
  for (const f of made.slice(0, pages)) unlinkSync(f);
}

/** Files whose names mark them as temporary, anywhere under `dir`. */
function temps(dir: string): string[] {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.tmp') || f.includes('.bas.lock'));
}

function expectNoSpace(r: { code: number | null; stderr: string }, file: string): void {
  expect(r.code).not.toBe(0);
  // `--resume` first says how much is left; the failure itself is one line.
  const lines = r.stderr
    .trim()
    .split('\n')
    .filter((l) => !l.startsWith('bas: resuming '));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain(file);
  expect(lines[0]).toMatch(/no space left on device/);
  expect(r.stderr).not.toMatch(/ENOSPC|at .*\.js/);
}

describe.skipIf(!probe)('a full disk', () => {
  it('gen -o fails in words and keeps the previous file', async () => {
    const disk = smallDisk();
    const out = join(disk, 'tasks.jsonl');
    writeFileSync(out, 'the previous file\n');
    fill(disk, 2);
    const r = await bas(['gen', '-n', '50', '-o', out]);
    expectNoSpace(r, out);
    expect(readFileSync(out, 'utf8')).toBe('the previous file\n');
    expect(temps(disk)).toEqual([]);
  });

  it('score --output fails in words and leaves no folder', async () => {
    const work = mkdtempSync(join(tmpdir(), 'bas-full-in-'));
    const tasks = join(work, 'tasks.jsonl');
    expect((await bas(['gen', '-n', '40', '-o', tasks])).code).toBe(0);
    const replies = join(work, 'replies.jsonl');
    writeFileSync(
      replies,
      Array.from({ length: 40 }, (_, i) => JSON.stringify({ index: i, reply: 'no answer' })).join('\n'),
    );
    const disk = smallDisk();
    const out = join(disk, 'scored');
    fill(disk, 1);
    const r = await bas(['score', '--tasks', tasks, '--replies', replies, '--output', out]);
    expectNoSpace(r, disk);
    expect(existsSync(out)).toBe(false);
    expect(temps(disk)).toEqual([]);
  });

  it('report --html fails in words and leaves no file', async () => {
    const run = join(mkdtempSync(join(tmpdir(), 'bas-full-in-')), 'run');
    expect((await bas(['eval', '-m', 'builtin:oracle', '-n', '3', '--output', run, '--no-progress'])).code).toBe(0);
    const disk = smallDisk();
    const out = join(disk, 'report.html');
    fill(disk, 1);
    const r = await bas(['report', run, '--html', out]);
    expectNoSpace(r, out);
    expect(existsSync(out)).toBe(false);
    expect(temps(disk)).toEqual([]);
  });

  it('--resume on a full disk keeps run.json as it was and leaves no lock', async () => {
    const disk = smallDisk();
    const run = join(disk, 'run');
    expect((await bas(['eval', '-m', 'builtin:oracle', '-n', '2', '--output', run, '--no-progress'])).code).toBe(0);
    const info = JSON.parse(readFileSync(join(run, 'run.json'), 'utf8'));
    const before = JSON.stringify({ ...info, n: 4, status: 'interrupted' }, null, 2);
    writeFileSync(join(run, 'run.json'), before);
    fill(disk, 1); // room for the lock, none for a new run.json
    const r = await bas(['eval', '--resume', run, '--no-progress']);
    expectNoSpace(r, join(run, 'run.json'));
    expect(readFileSync(join(run, 'run.json'), 'utf8')).toBe(before);
    expect(temps(disk)).toEqual([]);
  });

  it('a run that fails at its start on a full disk can be started again in the same folder', async () => {
    const disk = smallDisk();
    const run = join(disk, 'run');
    fill(disk, 1);
    const r = await bas(['eval', '-m', 'builtin:oracle', '-n', '3', '--output', run, '--no-progress']);
    expectNoSpace(r, join(run, 'run.json'));
    expect(temps(disk)).toEqual([]);
    rmSync(join(disk, 'filler'), { recursive: true });
    const again = await bas(['eval', '-m', 'builtin:oracle', '-n', '3', '--output', run, '--no-progress']);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/recorded no scored rollout; starting it again/);
    expect(JSON.parse(readFileSync(join(run, 'run.json'), 'utf8')).status).toBe('complete');
  });

  it('a run that fills the disk mid-way stops in one line, leaves no lock, and reads back as interrupted', async () => {
    const disk = smallDisk();
    const run = join(disk, 'run');
    const r = await bas(['eval', '-m', 'builtin:oracle', '-n', '500', '--output', run, '--no-progress']);
    expectNoSpace(r, join(run, 'results.jsonl'));
    expect(r.code).toBe(1);
    expect(temps(disk)).toEqual([]);
    const report = await bas(['report', run]);
    expect(report.code).toBe(0);
    expect(report.stdout).toMatch(/status: +interrupted/);
    expect(report.stdout.replace(/\s+/g, ' ')).toMatch(/bas eval --resume/);
  });
});
