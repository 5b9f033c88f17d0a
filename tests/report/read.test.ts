import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { readRun } from '../../src/report/read.js';
import { done, failed } from './fixtures.js';

const root = mkdtempSync(join(tmpdir(), 'bas-read-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let count = 0;
function folder(lines: string[], run?: object | string): string {
  const dir = join(root, `run${count++}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'results.jsonl'), lines.join('\n'));
  if (run !== undefined) writeFileSync(join(dir, 'run.json'), typeof run === 'string' ? run : JSON.stringify(run));
  return dir;
}

const RUN = { model: 'm', task: { num_transactions: 24, fault_rate: 0.25, seed: 1 }, n: 3, rollouts: 1, indices: null, status: 'complete' };
const line = (r: object) => JSON.stringify(r);

describe('readRun', () => {
  it('reads a complete run', async () => {
    const d = await readRun(folder([line(done(0, 0, { bas: 1, audit: 1 })), line(done(1, 0, { bas: 0, audit: 0.5 })), line(failed(2, 0)), ''], RUN));
    expect(d.summary.counts).toMatchObject({ rollouts: 3, completed: 2, errored: 1 });
    expect(d.model).toBe('m');
    expect(d.notes).toEqual([]);
  });

  it('skips a torn last line with a warning', async () => {
    const warnings: string[] = [];
    const torn = line(done(2, 0, { bas: 1, audit: 1 })).slice(0, 40);
    const d = await readRun(folder([line(done(0, 0, { bas: 1, audit: 1 })), line(done(1, 0, { bas: 1, audit: 1 })), torn], RUN), (w) => warnings.push(w));
    expect(d.summary.counts.rollouts).toBe(2);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/skipped line 3/);
    expect(d.notes.join(' ')).toMatch(/2 of 3 rollouts/);
  });

  it('refuses a corrupt middle line, naming it', async () => {
    const dir = folder([line(done(0, 0, { bas: 1, audit: 1 })), '{"index": 1, "rollo', line(done(2, 0, { bas: 1, audit: 1 }))], RUN);
    await expect(readRun(dir, () => {})).rejects.toThrow(ConfigError);
    await expect(readRun(dir, () => {})).rejects.toThrow(/line 2 is not valid JSON/);
  });

  it('refuses a line that is JSON but not a record', async () => {
    const dir = folder([line(done(0, 0, { bas: 1, audit: 1 })), '{"index": -1}'], RUN);
    await expect(readRun(dir, () => {})).rejects.toThrow(/line 2 is not a rollout record: "index"/);
  });

  it('missing folder, folder without results, empty results, bad run.json: clear ConfigErrors', async () => {
    await expect(readRun(join(root, 'nope'))).rejects.toThrow(/does not exist/);
    const empty = join(root, 'empty');
    mkdirSync(empty);
    await expect(readRun(empty)).rejects.toThrow(/not a run folder: it has no results.jsonl/);
    await expect(readRun(folder([], RUN))).rejects.toThrow(/holds no rollouts yet/);
    await expect(readRun(folder([line(done(0, 0, { bas: 1, audit: 1 }))], '{oops'))).rejects.toThrow(/run.json is not valid JSON/);
  });

  it('says when a run is in progress or was interrupted', async () => {
    const running = await readRun(folder([line(done(0, 0, { bas: 1, audit: 1 }))], { ...RUN, status: 'running' }));
    expect(running.notes[0]).toMatch(/still in progress/);
    expect(running.notes[1]).toMatch(/1 of 3 rollouts are recorded/);
    const cut = await readRun(folder([line(done(0, 0, { bas: 1, audit: 1 }))], { ...RUN, status: 'interrupted' }));
    expect(cut.notes[0]).toMatch(/interrupted.*--resume/);
  });

  it('reads a bare results file, and a folder without run.json', async () => {
    const dir = folder([line(done(0, 0, { bas: 1, audit: 1 }))]);
    const d = await readRun(join(dir, 'results.jsonl'));
    expect(d.model).toBe('test/model');
    expect(d.task).toEqual({ num_transactions: 24, fault_rate: 0.25, seed: 20260826 });
    const d2 = await readRun(dir);
    expect(d2.notes.join(' ')).toMatch(/No run.json/);
  });

  it('last line wins across a resumed run', async () => {
    const d = await readRun(folder([line(failed(0, 0)), line(done(1, 0, { bas: 1, audit: 1 })), line(done(0, 0, { bas: 1, audit: 1 }))], { ...RUN, n: 2 }));
    expect(d.summary.counts).toMatchObject({ lines: 3, replaced: 1, rollouts: 2, completed: 2, errored: 0 });
    expect(d.notes).toEqual([]);
  });
});
