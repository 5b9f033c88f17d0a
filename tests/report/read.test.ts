import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors/index.js';
import { readRun, readRunFolding } from '../../src/report/read.js';
import { FolderLock } from '../../src/runfile/lock.js';
import { GENERATOR_VERSION } from '../../src/task/generate.js';
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

const RUN = {
  model: 'm',
  generator: GENERATOR_VERSION,
  task: { num_transactions: 24, fault_rate: 0.25, seed: 1 },
  n: 3,
  rollouts: 1,
  indices: null,
  status: 'complete',
};
const line = (r: object) => JSON.stringify(r);

describe('readRun', () => {
  it('reads a complete run', async () => {
    const d = await readRun(
      folder(
        [line(done(0, 0, { bas: 1, audit: 1 })), line(done(1, 0, { bas: 0, audit: 0.5 })), line(failed(2, 0)), ''],
        RUN,
      ),
    );
    expect(d.summary.counts).toMatchObject({ rollouts: 3, completed: 2, errored: 1 });
    expect(d.model).toBe('m');
    expect(d.notes).toEqual([]);
  });

  it("folds a caller's fold in the same read and returns the one that saw each winner once", async () => {
    // Task 1 errored, then was run again: its second line wins, and the file is read again.
    const dir = folder(
      [
        line(done(0, 0, { bas: 1, audit: 1 })),
        line(failed(1, 0)),
        line(done(2, 0, { bas: 1, audit: 1 })),
        line(done(1, 0, { bas: 0, audit: 0.5 })),
      ],
      RUN,
    );
    let made = 0;
    const { data, fold } = await readRunFolding(dir, () => {
      made++;
      const seen: Array<[number, number]> = [];
      return { seen, add: (r: { index: number }, at: number) => seen.push([r.index, at]) };
    });
    expect(made).toBe(2);
    expect(fold.seen).toEqual([
      [0, 1],
      [2, 3],
      [1, 4],
    ]);
    expect(data.summary.counts).toMatchObject({ rollouts: 3, completed: 3, errored: 0 });
    expect((await readRunFolding(dir, () => null)).fold).toBeNull();
  });

  it('skips a torn last line with a warning', async () => {
    const warnings: string[] = [];
    const torn = line(done(2, 0, { bas: 1, audit: 1 })).slice(0, 40);
    const d = await readRun(
      folder([line(done(0, 0, { bas: 1, audit: 1 })), line(done(1, 0, { bas: 1, audit: 1 })), torn], RUN),
      (w) => warnings.push(w),
    );
    expect(d.summary.counts.rollouts).toBe(2);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/skipped line 3/);
    expect(d.notes.join(' ')).toMatch(/2 of 3 rollouts/);
  });

  it('refuses a corrupt middle line, naming it', async () => {
    const dir = folder(
      [line(done(0, 0, { bas: 1, audit: 1 })), '{"index": 1, "rollo', line(done(2, 0, { bas: 1, audit: 1 }))],
      RUN,
    );
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
    await expect(readRun(folder([line(done(0, 0, { bas: 1, audit: 1 }))], '{oops'))).rejects.toThrow(
      /run.json is not valid JSON/,
    );
  });

  it('says when a run is in progress or was interrupted', async () => {
    const live = folder([line(done(0, 0, { bas: 1, audit: 1 }))], { ...RUN, status: 'running' });
    const lock = FolderLock.acquire(live);
    const running = await readRun(live);
    lock.release();
    expect(running.notes[0]).toMatch(/still in progress/);
    expect(running.notes[1]).toMatch(/1 of 3 rollouts are recorded/);
    // "running" with no live owner (killed, crashed, or a lock left by a dead pid): interrupted.
    const orphan = folder([line(done(0, 0, { bas: 1, audit: 1 }))], { ...RUN, status: 'running' });
    writeFileSync(
      join(orphan, '.bas.lock'),
      JSON.stringify({ pid: 2 ** 22 + 7, start: '1', host: hostname(), token: 'dead' }),
    );
    for (const dir of [orphan, folder([line(done(0, 0, { bas: 1, audit: 1 }))], { ...RUN, status: 'running' })]) {
      const d = await readRun(dir);
      expect(d.run?.status).toBe('interrupted');
      expect(d.notes[0]).toMatch(/interrupted.*bas eval --resume/);
    }
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
    const d = await readRun(
      folder([line(failed(0, 0)), line(done(1, 0, { bas: 1, audit: 1 })), line(done(0, 0, { bas: 1, audit: 1 }))], {
        ...RUN,
        n: 2,
      }),
    );
    expect(d.summary.counts).toMatchObject({ lines: 3, replaced: 1, rollouts: 2, completed: 2, errored: 0 });
    expect(d.notes).toEqual([]);
  });

  it('checks what it reads back against the bounds of the flags, naming file, line and key', async () => {
    const huge = {
      ...done(1, 0, { bas: 1, audit: 1 }),
      config: { num_transactions: 10_000_000, fault_rate: 0.25, seed: 1 },
    };
    const dir = folder([line(done(0, 0, { bas: 1, audit: 1 })), line(huge)], RUN);
    await expect(readRun(dir, () => {})).rejects.toThrow(
      /results\.jsonl: line 2 is not a rollout record: "config\.num_transactions" must be an integer from 4 to 10000, got 10000000/,
    );
    const badRun = folder([line(done(0, 0, { bas: 1, audit: 1 }))], {
      ...RUN,
      task: { num_transactions: 1e9, fault_rate: 0.25, seed: 1 },
    });
    await expect(readRun(badRun)).rejects.toThrow(
      /run\.json: "task\.num_transactions" must be an integer from 4 to 10000/,
    );
    const badN = folder([line(done(0, 0, { bas: 1, audit: 1 }))], { ...RUN, n: -3 });
    await expect(readRun(badN)).rejects.toThrow(/run\.json: "n" must be an integer/);
  });

  it('notes a run made by another task generator, whose ledgers cannot be rebuilt', async () => {
    const d = await readRun(
      folder([line(done(0, 0, { bas: 1, audit: 1 }))], { ...RUN, generator: GENERATOR_VERSION + 1, n: 1 }),
    );
    expect(d.notes.join(' ')).toMatch(/task generator \d+ .*replies without ledgers/);
  });
});
