/**
 * Run folders read ahead on several threads (report/read-ahead.ts) give what reading them one
 * after the other gives: the same data and per-task means, the same warnings in the same
 * order, and the same error at the same turn (a thread's failed read is done again on the
 * main thread). The threads need the compiled read-worker.js, so the compiled module is
 * tested; its size threshold is set to 0 here so that these small runs use threads.
 */
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIST, tempDir } from '../support/cli.js';
import { writeRun } from './make-run.js';

type ReadAhead = typeof import('../../src/report/read-ahead.js');
type Read = typeof import('../../src/report/read.js');
type RunData = import('../../src/report/read.js').RunData;

let root: string;
let ahead: ReadAhead;
let read: Read;

beforeAll(async () => {
  root = tempDir('bas-read-ahead-');
  ahead = (await import(pathToFileURL(join(DIST, 'report', 'read-ahead.js')).href)) as ReadAhead;
  read = (await import(pathToFileURL(join(DIST, 'report', 'read.js')).href)) as Read;
  writeRun(join(root, 'a'), { n: 30, model: 'a', choose: (i) => (i % 4 === 0 ? 'silent' : 'oracle') });
  writeRun(join(root, 'b'), { n: 30, rollouts: 2, model: 'b', choose: (i, r) => (r ? 'raw-sums' : 'oracle') });
  writeRun(join(root, 'c'), { n: 30, model: 'c', choose: (i) => (i === 3 ? { error: 'timeout' } : 'blanket') });
  // A torn last line (a crash mid-write): skipped with a warning.
  writeRun(join(root, 'torn'), { n: 10, model: 't', choose: () => 'oracle' });
  appendFileSync(join(root, 'torn', 'results.jsonl'), '{"index": 10, "rollo');
  // A damaged line in the middle: refused.
  mkdirSync(join(root, 'bad'));
  writeRun(join(root, 'bad'), { n: 10, model: 'x', choose: () => 'oracle', extraLines: ['{"index": 1, oops}'] });
  writeFileSync(join(root, 'empty.jsonl'), '');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A run's data as comparable values: its per-task means as plain arrays. */
function plain(d: RunData): unknown {
  const t = d.builder.taskMeans();
  const { builder: _, ...rest } = d;
  return {
    ...rest,
    tasks: [...t.index, ...t.reward, ...t.rewardZero, ...t.completed, ...t.rollouts],
    rows: d.builder.perTask(),
  };
}

/** Each folder read in turn as `readRunsAhead` hands it over: data or error, and every warning, in order. */
async function walk(
  reads: Array<(w: (m: string) => void) => Promise<RunData>>,
  kinds: string[] = [],
): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const r of reads) {
    try {
      const d = await r((m) => out.push(`warning: ${m}`));
      kinds.push(d.builder.constructor.name);
      out.push(plain(d));
    } catch (err) {
      out.push(`${(err as Error).constructor.name}: ${(err as Error).message}`);
    }
  }
  return out;
}

describe('reading runs ahead on several threads', () => {
  it('gives the data, per-task means, warnings and errors of reading one after the other', async () => {
    const dirs = ['a', 'torn', 'b', 'bad', 'c', 'empty.jsonl'].map((d) => join(root, d));
    const kinds: string[] = [];
    const threaded = await walk(await ahead.readRunsAhead(dirs, 0), kinds);
    const oneByOne = await walk(dirs.map((dir) => (w: (m: string) => void) => read.readRun(dir, w)));
    expect(threaded).toEqual(oneByOne);
    // What was read: three runs, a warning and two refusals, in the order given.
    expect(threaded.map((x) => (typeof x === 'string' ? x.split(':')[0] : 'data'))).toEqual([
      'data',
      'warning',
      'data',
      'data',
      'BadRecordError',
      'data',
      'ConfigError',
    ]);
    // Some were read by a thread (their summary builder stayed there), some on the main thread.
    if (availableParallelism() > 1) expect(new Set(kinds)).toEqual(new Set(['FixedTaskMeans', 'SummaryBuilder']));
    const b = threaded[3] as { summary: { counts: { rollouts: number } }; rows: unknown[] };
    expect(b.summary.counts.rollouts).toBe(60);
    expect(b.rows).toHaveLength(30);
  });

  it('reads on the main thread alone below its size threshold, lazily', async () => {
    const reads = await ahead.readRunsAhead([join(root, 'a'), join(root, 'nowhere')]);
    expect(plain(await reads[0]!(() => {}))).toEqual(plain(await read.readRun(join(root, 'a'), () => {})));
    await expect(reads[1]!(() => {})).rejects.toThrow(/does not exist/);
  });
});
