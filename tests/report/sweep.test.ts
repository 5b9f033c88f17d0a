/**
 * `bas sweep` through the built CLI with the built-in policies: one eval per point into one
 * folder, resumable as a whole, the curve as text (80 columns), JSON and HTML, and the
 * folder read by `bas leaderboard`.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort } from '../support/closed-port.js';
import { textWidth } from '../../src/report/fit-table.js';
import { bas } from '../support/cli.js';

let root: string;
let sweepDir: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'bas-sweep-'));
  sweepDir = join(root, 'sweep');
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Point {
  num_transactions: number;
  fault_rate: number | null;
  completed: number;
  measures: Record<string, { mean: number; ci95: [number, number]; method: string }>;
}

describe('bas sweep', () => {
  it('runs one eval per point into sub-folders and prints the curve in 80 columns', () => {
    const html = join(root, 'sweep.html');
    const r = bas([
      'sweep',
      '--num-transactions',
      '12,24,60',
      '-m',
      'builtin:oracle',
      '-n',
      '8',
      '--output',
      sweepDir,
      '--no-progress',
      '--html',
      html,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(sweepDir).sort()).toEqual(['rows-12', 'rows-24', 'rows-60', 'sweep.json']);
    expect(r.stderr).toContain('sweep point 3 of 3: 60 rows');
    const tables = r.stdout.split('\n').filter((l) => /^[┌│├└]/.test(l));
    expect(tables.length).toBeGreaterThan(5);
    for (const l of tables) expect(textWidth(l)).toBeLessThanOrEqual(80);
    expect(r.stdout).toMatch(/│ +60 │ +1\.000 │/);
    const page = readFileSync(html, 'utf8');
    expect(page).toContain('class="whisker"');
    expect(page).toContain('rows per ledger (log scale)');
    // Each point is an ordinary run folder with its own ledger length.
    const run = JSON.parse(readFileSync(join(sweepDir, 'rows-24', 'run.json'), 'utf8'));
    expect(run.task.num_transactions).toBe(24);
    expect(run.status).toBe('complete');
  });

  it('--json: reward, bas_correct and fault_audit per point with bounded intervals', () => {
    const r = bas(['sweep', '--resume', sweepDir, '--json', '--no-progress']);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout) as { points: Point[] };
    expect(j.points.map((p) => p.num_transactions)).toEqual([12, 24, 60]);
    for (const p of j.points) {
      expect(p.completed).toBe(8);
      for (const m of ['reward', 'bas_correct', 'fault_audit']) {
        expect(p.measures[m]!.mean).toBe(1);
        expect(p.measures[m]!.ci95[0]).toBeGreaterThan(0.5);
        expect(p.measures[m]!.ci95[1]).toBe(1);
      }
    }
  });

  it('--html over one of its own inputs is refused, and the input kept', () => {
    for (const target of [join(sweepDir, 'sweep.json'), join(sweepDir, 'rows-12', 'run.json')]) {
      const before = readFileSync(target, 'utf8');
      const r = bas(['sweep', '--resume', sweepDir, '--no-progress', '--html', target]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--html .* is the input .*choose another file/);
      expect(readFileSync(target, 'utf8')).toBe(before);
    }
  });

  it('refuses a base URL carrying credentials, which sweep.json would keep', () => {
    const r = bas([
      'sweep',
      '--num-transactions',
      '12',
      '-m',
      'm',
      '-n',
      '2',
      '--base-url',
      'http://127.0.0.1:9/v1?api-key=SUPERSECRETVALUE123',
      '--output',
      join(root, 'cred'),
      '--no-progress',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain('SUPERSECRET');
    expect(r.stderr).toMatch(/--base-url/);
    expect(existsSync(join(root, 'cred', 'sweep.json'))).toBe(false);
  });

  it('--resume finishes a cut-off point and starts a missing one, with the saved settings', () => {
    rmSync(join(sweepDir, 'rows-60'), { recursive: true });
    const results = join(sweepDir, 'rows-24', 'results.jsonl');
    writeFileSync(results, readFileSync(results, 'utf8').split('\n').slice(0, 3).join('\n') + '\n');
    const r = bas(['sweep', '--resume', sweepDir, '--json', '--no-progress']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('24 rows (resumed)');
    const j = JSON.parse(r.stdout) as { points: Point[] };
    expect(j.points.map((p) => p.completed)).toEqual([8, 8, 8]);
    expect(JSON.parse(readFileSync(join(sweepDir, 'rows-60', 'run.json'), 'utf8')).n).toBe(8);
  });

  it('a sweep folder is read by the leaderboard: one group per point, never ranked together', () => {
    const r = bas(['leaderboard', sweepDir, '--json', '--resamples', '200']);
    expect(r.code, r.stderr).toBe(0);
    const lb = JSON.parse(r.stdout) as { groups: Array<{ runs: unknown[] }> };
    expect(lb.groups).toHaveLength(3);
    expect(lb.groups.every((g) => g.runs.length === 1)).toBe(true);
  });

  it('--resume of a folder whose sweep.json is a link to a device that never ends stops in one line', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'bas-sweep-zero-')), 'sweep');
    mkdirSync(dir);
    symlinkSync('/dev/zero', join(dir, 'sweep.json'));
    const r = bas(['sweep', '--resume', dir, '--no-progress']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/sweep\.json is larger than 10000000 bytes: not a bas sweep plan/);
  });

  it('fault rates make a grid of points', () => {
    const dir = join(root, 'grid');
    const r = bas([
      'sweep',
      '--num-transactions',
      '12,24',
      '--fault-rate',
      '0.1,0.5',
      '-m',
      'builtin:raw-sums',
      '-n',
      '3',
      '--output',
      dir,
      '--no-progress',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout) as { points: Point[] };
    expect(j.points.map((p) => `${p.num_transactions}/${p.fault_rate}`)).toEqual([
      '12/0.1',
      '12/0.5',
      '24/0.1',
      '24/0.5',
    ]);
  });

  it.each([
    [['sweep', '-m', 'builtin:oracle'], /needs --num-transactions/],
    [
      ['sweep', '--num-transactions', '12,3', '-m', 'builtin:oracle'],
      /--num-transactions must be an integer from 4 to 10000, got "3"/,
    ],
    [['sweep', '--num-transactions', '12,,24', '-m', 'builtin:oracle'], /comma-separated list/],
    [['sweep', '--num-transactions', '12,12', '-m', 'builtin:oracle'], /lists a value twice/],
    [
      ['sweep', '--num-transactions', '12', '--fault-rate', '2', '-m', 'builtin:oracle'],
      /--fault-rate must be a number from 0 to 1, got "2"/,
    ],
    [
      ['sweep', '--num-transactions', '12', '-m', 'builtin:oracle', '--output', 'SWEEP'],
      /exists and is not empty: continue it with bas sweep --resume/,
    ],
    [
      ['sweep', '--resume', 'SWEEP', '-m', 'other'],
      /takes only --json, --html, --no-progress and, to confirm its endpoint, --base-url/,
    ],
    [['sweep', '--resume', 'ROOT'], /is not a sweep folder/],
  ])('bad input %j: one line, exit 2', (args, message) => {
    const r = bas(args.map((a) => a.replace('SWEEP', sweepDir).replace('ROOT', root)));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('takes its plan back when eval refuses the first point, so the folder can be used again', () => {
    const dir = join(root, 'refused');
    const r = bas([
      'sweep',
      '--num-transactions',
      '12',
      '-m',
      'builtin:oracle',
      '--temperature',
      '9',
      '--output',
      dir,
      '--no-progress',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--temperature must be/);
    expect(existsSync(join(dir, 'sweep.json'))).toBe(false);
  });

  it('a sweep stopped at its first point by an unreachable endpoint is started again in the same folder, corrected', async () => {
    const dir = join(root, 'unreachable');
    const port = await closedPort();
    const args = ['sweep', '--num-transactions', '12,24', '-n', '2', '--output', dir, '--no-progress'];
    const first = bas([...args, '-m', 'm', '--base-url', `http://127.0.0.1:${port}/v1`], {
      env: { OPENAI_API_KEY: 'k' },
    });
    expect(first.code).toBe(1);
    expect(first.stderr).toMatch(/run the same bas sweep command with the cause fixed/);
    expect(existsSync(join(dir, 'sweep.json'))).toBe(false);
    const again = bas([...args, '-m', 'builtin:oracle', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).points.map((p: Point) => p.completed)).toEqual([2, 2]);
  });
});
