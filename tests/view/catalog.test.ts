/**
 * The run list never waits on a results file (view/run-row.ts): it is made from run.json and what
 * the indexes have read already; the reads follow in the background and show on the next ask.
 * A large file is read in the background, its rollouts listed as they are read.
 */
import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Catalog } from '../../src/view/catalog.js';
import { runRow } from '../../src/view/run-row.js';
import { readRun } from '../../src/report/read.js';
import { processStartTime } from '../../src/runfile/lock.js';
import { makeRecord, SMALL_CONFIG, writeRun } from '../report/make-run.js';
import { tempDir } from '../support/cli.js';

const choose = (i: number) => (i % 3 ? 'oracle' : 'blanket');

describe('the run list', () => {
  it('lists what is already read, and what the file gained on the next ask', async () => {
    const root = tempDir('bas-view-list-');
    // A run of 50 tasks with 40 recorded so far.
    writeRun(join(root, 'a'), { n: 40, model: 'm', choose, runJson: { n: 50 } });
    const catalog = new Catalog(root);
    const run = (await catalog.run('a'))!;
    expect((await run.rollouts()).rollouts).toBe(40);
    let more = '';
    for (let i = 40; i < 50; i++) more += `${JSON.stringify(makeRecord(SMALL_CONFIG, i, 0, 'm', 'oracle'))}\n`;
    appendFileSync(join(root, 'a', 'results.jsonl'), more);
    // The list does not wait for the 10 new lines to be read ...
    expect((await catalog.list()).runs[0]!.recorded).toBe(40);
    // ... one run's progress does, and so the next list has them.
    expect((await runRow(run)).recorded).toBe(50);
    expect((await catalog.list()).runs[0]!.recorded).toBe(50);
  });
});

describe('a running run in the list', () => {
  it('shows the rollouts recorded up to the ask, not those of the ask before (issue 36: the list lagged by half)', async () => {
    const root = tempDir('bas-view-live-');
    const live = join(root, 'live');
    writeRun(live, { n: 20, model: 'm', choose, status: 'running', runJson: { n: 100 } });
    // A live process (this one) holds its lock: the run is running, not interrupted.
    const pid = process.pid;
    const lock = { program: 'bas', pid, start: processStartTime(pid), host: hostname(), token: 't', since: '' };
    writeFileSync(join(live, '.bas.lock'), JSON.stringify(lock));
    const catalog = new Catalog(root);
    expect((await catalog.list()).runs[0]).toMatchObject({ status: 'running', recorded: 20 });
    for (const upTo of [60, 100]) {
      let more = '';
      for (let i = upTo - 40; i < upTo; i++)
        more += `${JSON.stringify(makeRecord(SMALL_CONFIG, i, 0, 'm', 'oracle'))}\n`;
      appendFileSync(join(live, 'results.jsonl'), more);
      expect((await catalog.list()).runs[0]!.recorded).toBe(upTo);
    }
  });
});

describe("the run list and run.json's stored summary", () => {
  it('shows what the results give, never a stored summary that claims other figures', async () => {
    const root = tempDir('bas-view-list-');
    const dir = join(root, 'a');
    writeRun(dir, { n: 20, model: 'm', choose: () => 'blanket' });
    const real = (await readRun(dir, () => {})).summary;
    expect(real.reward.mean).toBeLessThan(0.9);
    const run = JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8'));
    run.summary = { ...real, reward: { ...real.reward, mean: 0.99 } };
    writeFileSync(join(dir, 'run.json'), JSON.stringify(run));
    const catalog = new Catalog(root);
    // Not read yet: nothing is shown rather than the claim ...
    expect((await catalog.list()).runs[0]!.figures?.reward.mean ?? null).not.toBe(0.99);
    // ... and once the results are read, their figures.
    await (await catalog.run('a'))!.summary(true);
    expect((await catalog.list()).runs[0]!.figures?.reward.mean).toBe(real.reward.mean);
  });
});

describe('folder names the run list shows', () => {
  it('shows a right-to-left override as its escape, and the run still opens by the id it shows', async () => {
    const root = tempDir('bas-view-names-');
    writeRun(join(root, 'evil\u202eredli'), { n: 3, model: 'm', choose: () => 'oracle' });
    const catalog = new Catalog(root);
    const [row] = (await catalog.list()).runs;
    expect(row!.id).toBe('evil\\u202eredli');
    expect((await (await catalog.run(row!.id))!.summary(true))?.report.summary.counts.rollouts).toBe(3);
  });

  it('names a folder whose name is not UTF-8 instead of leaving it out in silence', async () => {
    const root = tempDir('bas-view-names-');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(Buffer.concat([Buffer.from(`${root}/bad-`), Buffer.from([0xff, 0xfe])]));
    writeRun(join(root, 'good'), { n: 2, model: 'm', choose: () => 'oracle' });
    const list = await new Catalog(root).list();
    expect(list.runs.map((r) => r.id)).toEqual(['good']);
    expect(list.unnamed).toEqual(['bad-\ufffd\ufffd']);
  });
});

describe('a large results file', () => {
  it('is read in the background: the index answers at once with what it has read, and the rest follows', async () => {
    const dir = tempDir('bas-view-bg-');
    writeRun(join(dir, 'a'), { n: 60, model: 'm', choose: () => 'oracle' });
    // Every file counts as large: nothing is waited for.
    const catalog = new Catalog(dir, { waitBytes: 0 });
    const run = (await catalog.run('a'))!;
    const early = await run.rollouts();
    expect(early.reading).toBe(true);
    expect(early.target).toBe(statSync(join(dir, 'a', 'results.jsonl')).size);
    expect(early.rollouts).toBeLessThan(60);
    const whole = await run.wholeIndex();
    expect(whole).toBe(early);
    expect(whole.reading).toBe(false);
    expect(whole.rollouts).toBe(60);
  });
});
