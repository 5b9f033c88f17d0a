/**
 * A sweep's resume reads each point's results.jsonl once: its plan reads the points it must
 * ask about (is every point finished, or recorded as cut off? then no endpoint need be
 * confirmed), and hands each read on to the point's run and to the cut-off check, which used
 * to read the file again. Counted at the file reader every run file goes through
 * (src/io/jsonl.ts), by path, over planning and running (`planSweep`, `runSweepPlan`); the
 * table `bas sweep` prints afterwards reads the folders as they then stand, as `bas report` does.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { runSweep } from '../../src/index.js';
import { planSweep } from '../../src/api/sweep-plan.js';
import { runSweepPlan, type SweepOutcome } from '../../src/engine/sweep.js';
import { tempDir } from '../support/cli.js';

const opened = vi.hoisted(() => [] as string[]);

vi.mock('../../src/io/jsonl.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/io/jsonl.js')>();
  return {
    ...real,
    boundedFileLineBatches: (path: string, ...rest: [number?]) => {
      opened.push(path);
      return real.boundedFileLineBatches(path, ...rest);
    },
  };
});

const POINTS = [6, 8, 10];
const results = (dir: string, rows: number) => join(dir, `rows-${rows}`, 'results.jsonl');

/** A sweep of three points of `n` tasks each, by the built-in oracle; `stopAt`: interrupted at that point's third rollout. */
async function sweep(n: number, stopAt: number | null = null): Promise<string> {
  const dir = join(tempDir(), 'sweep');
  const stop = new AbortController();
  let seen = 0;
  const r = await runSweep(
    { models: ['builtin:oracle'], n, concurrency: 1, task: { num_transactions: POINTS }, output: dir },
    {
      signal: stop.signal,
      onEvent: (e) => {
        if (e.type === 'point-event' && e.index === stopAt && e.event.type === 'rollout' && ++seen === 3) stop.abort();
      },
    },
  );
  expect(r.outcome.kind).toBe(stopAt === null ? 'done' : 'stopped');
  return dir;
}

/** Plans and runs the resume of the sweep in `dir`; its outcome and how often each point's file was opened. */
async function resume(dir: string): Promise<{ outcome: SweepOutcome; opens: number[] }> {
  opened.length = 0;
  const outcome = await runSweepPlan(await planSweep([], { resume: dir }));
  const seen = [...opened];
  return { outcome, opens: POINTS.map((rows) => seen.filter((p) => p === results(dir, rows)).length) };
}

/** Makes point `rows` one the first-contact rule stopped with every reply cut off by the token limit. */
function cutOff(dir: string, rows: number): void {
  const file = results(dir, rows);
  const cut = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => ({
      ...(JSON.parse(l) as Record<string, unknown>),
      reply: '',
      reward: null,
      rewards: null,
      metrics: null,
      detail: null,
      error: { type: 'malformed', message: 'the reply was cut off by the token limit' },
      finish_reason: 'length',
    }));
  writeFileSync(file, cut.map((r) => `${JSON.stringify(r)}\n`).join(''));
  const run = join(dir, `rows-${rows}`, 'run.json');
  writeFileSync(run, JSON.stringify({ ...JSON.parse(readFileSync(run, 'utf8')), status: 'failed' }));
}

describe("a sweep's resume reads each point's results once", () => {
  it('a finished sweep: each point once, by the plan; the runs take its reads', async () => {
    const dir = await sweep(40);
    const r = await resume(dir);
    expect(r.outcome).toEqual({ kind: 'done', failed: [], cut_off: [] });
    expect(r.opens).toEqual([1, 1, 1]);
  });

  it('a sweep stopped at its second point: the first two once each (by the plan), the third is new', async () => {
    const dir = await sweep(12, 1);
    const r = await resume(dir);
    expect(r.outcome).toEqual({ kind: 'done', failed: [], cut_off: [] });
    expect(r.opens).toEqual([1, 1, 0]);
    const run = JSON.parse(readFileSync(join(dir, 'rows-8', 'run.json'), 'utf8'));
    expect(run.summary.counts.rollouts).toBe(12);
  });

  it('a point recorded as cut off: once, for both the plan and the check that keeps it', async () => {
    const dir = await sweep(12);
    cutOff(dir, 8);
    const r = await resume(dir);
    expect(r.outcome).toEqual({ kind: 'done', failed: [], cut_off: [1] });
    expect(r.opens).toEqual([1, 1, 1]);
  });

  it("a point's file changed after the plan read it is read again by its run", async () => {
    const dir = await sweep(12);
    const planned = await planSweep([], { resume: dir });
    // The plan read a finished point; one of its lines goes before its run takes the folder.
    const file = results(dir, 8);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    writeFileSync(file, lines.slice(0, -1).join('\n') + '\n');
    const ended: Array<{ index: number; kind: string; ran: number }> = [];
    const outcome = await runSweepPlan(planned, {
      onEvent: (e) => {
        if (e.type === 'point-ended')
          ended.push({ index: e.index, kind: e.result.outcome.kind, ran: e.result.ran_here });
      },
    });
    expect(outcome.kind).toBe('done');
    expect(ended[1]).toEqual({ index: 1, kind: 'ok', ran: 1 });
    expect(ended[0]!.ran).toBe(0);
  });
});
