/**
 * What `bas eval` and `bas report` say about a run's time and status across its sessions:
 * a resumed run's time counts every session, and a run whose every rollout is recorded is
 * complete even when the reader of its output went away at its very end.
 */
import { once } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bas, startBas, tempDir } from '../support/cli.js';

const runJson = (dir: string): Record<string, any> => JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));

describe('the time of a run', () => {
  it('counts every session: eval after a resume and report say "over 2 sessions"', async () => {
    const dir = join(tempDir(), 'run');
    expect((await bas(['eval', '-m', 'builtin:oracle', '-n', '2', '--output', dir, '--no-progress'])).code).toBe(0);
    const first = runJson(dir);
    expect(first.sessions).toHaveLength(1);
    expect(first.sessions[0]).toMatchObject({ started_at: first.started_at, ended_at: first.ended_at, rollouts: 2 });
    expect(first.elapsed_s).toBeGreaterThanOrEqual(0);
    // The first session ran 10 s by its record; two more tasks are left to a resume.
    const ten = new Date(Date.parse(first.started_at) + 10_000).toISOString();
    first.sessions[0].ended_at = ten;
    writeFileSync(join(dir, 'run.json'), JSON.stringify({ ...first, n: 4, status: 'interrupted', ended_at: ten }));

    const r = await bas(['eval', '--resume', dir, '--no-progress']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^time: {5}(\d+ ms|\d+\.\d s) for 2 rollouts/m);
    // 10 s recorded plus however long the resume took on this machine: never less than 10.
    const inAll = /^in all: {3}(\d+\.\d) s over 2 sessions$/m.exec(r.stdout);
    expect(Number(inAll?.[1])).toBeGreaterThanOrEqual(10);
    const after = runJson(dir);
    expect(after.sessions).toHaveLength(2);
    expect(after.elapsed_s).toBeGreaterThanOrEqual(10);

    const report = await bas(['report', dir]);
    const wall = /^wall time: +(\d+\.\d) s over 2 sessions$/m.exec(report.stdout);
    expect(Number(wall?.[1])).toBeCloseTo(after.elapsed_s, 0);
    const json = JSON.parse((await bas(['report', dir, '--json'])).stdout);
    expect(json.run).toMatchObject({ elapsed_s: after.elapsed_s, sessions: 2, sessions_of_unknown_length: 0 });
  });

  it('of a single session shows no "in all" line', async () => {
    const dir = join(tempDir(), 'run');
    const r = await bas(['eval', '-m', 'builtin:oracle', '-n', '2', '--output', dir, '--no-progress']);
    expect(r.stdout).toMatch(/^time: /m);
    expect(r.stdout).not.toMatch(/^in all:/m);
    expect((await bas(['report', dir])).stdout).toMatch(
      /^wall time: +(\d+ ms|\d+\.\d s), over the first start and every resume$/m,
    );
  });
});

describe('a reader that goes away at the end of a run', () => {
  it('leaves the run complete when every rollout is recorded (`bas eval … 2>&1 | head -1`)', async () => {
    const dir = join(tempDir(), 'run');
    // The reader is gone before bas writes anything, and a run of one rollout writes its first
    // progress line as that rollout ends: into the closed pipe, while the run ends. The closed
    // pipe is noticed either then (exit 141) or after the run (a quiet exit 0); either way every
    // rollout is recorded, so the run is complete. bas 0.3 marked it interrupted in the first
    // case ("1 of 1 recorded").
    const child = startBas(['eval', '-m', 'builtin:oracle', '-n', '1', '--output', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.destroy();
    child.stderr!.destroy();
    const [code] = (await once(child, 'exit')) as [number | null];
    expect([0, 141]).toContain(code);
    const info = runJson(dir);
    expect(info.status).toBe('complete');
    expect(info.summary.counts.rollouts).toBe(1);
    expect(existsSync(join(dir, '.bas.lock'))).toBe(false);
  });
});
