/**
 * A resume under a stopping rule reads each file once: the run's results.jsonl once (the one
 * fold gives the rule its rewards too), and for `--against RUN` RUN's run.json once (the plan
 * carries what the rule needs of it) and RUN's results.jsonl once. Counted at the file readers
 * every run file goes through (src/io/jsonl.ts), by path.
 */
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { runEval } from '../../src/index.js';
import { tempDir } from '../support/cli.js';

const opened = vi.hoisted(() => [] as string[]);

vi.mock('../../src/io/jsonl.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/io/jsonl.js')>();
  return {
    ...real,
    readSmallFile: (path: string, ...rest: [number, boolean?]) => {
      opened.push(path);
      return real.readSmallFile(path, ...rest);
    },
    boundedFileLineBatches: (path: string, ...rest: [number?]) => {
      opened.push(path);
      return real.boundedFileLineBatches(path, ...rest);
    },
  };
});

/** How many times each file was opened while `fn` ran. */
async function opens(fn: () => Promise<unknown>): Promise<(path: string) => number> {
  opened.length = 0;
  await fn();
  const seen = [...opened];
  return (path) => seen.filter((p) => p === path).length;
}

const TASK = { num_transactions: 6, fault_rate: 0.25, seed: 7 };

/** A run stopped after a few rollouts, so that its resume has work left. */
async function interrupted(config: Parameters<typeof runEval>[0]): Promise<string> {
  const dir = join(tempDir(), 'cand');
  const stop = new AbortController();
  let seen = 0;
  const first = await runEval(
    { task: TASK, output: dir, concurrency: 1, ...config },
    {
      signal: stop.signal,
      onEvent: (e) => {
        if (e.type === 'rollout' && ++seen === 5) stop.abort();
      },
    },
  );
  expect(first.outcome.kind).toBe('interrupted');
  return dir;
}

describe('a resume under a stopping rule reads each file once', () => {
  it('--against RUN: the run and RUN, run.json and results.jsonl, once each', async () => {
    const base = join(tempDir(), 'base');
    await runEval({ model: 'builtin:share:0.5', n: 40, task: TASK, output: base });
    const dir = await interrupted({ model: 'builtin:share:0.5', against: base, until: 'decided' });
    const count = await opens(async () => {
      const r = await runEval({}, { resume: dir });
      expect(r.sequential?.rule).toBe('decided');
      expect(r.sequential?.tasks).toBe(40);
    });
    expect(count(join(dir, 'run.json'))).toBe(1);
    expect(count(join(dir, 'results.jsonl'))).toBe(1);
    expect(count(join(base, 'run.json'))).toBe(1);
    expect(count(join(base, 'results.jsonl'))).toBe(1);
  });

  it('--precision: results.jsonl once, its rewards carried on to the rule', async () => {
    const dir = await interrupted({ model: 'builtin:share:0.5', n: 60, precision: 0.01 });
    const count = await opens(async () => {
      const r = await runEval({}, { resume: dir });
      // Every task was consumed, the five recorded before the stop among them.
      expect(r.sequential).toMatchObject({ rule: 'precision', tasks: 60, reached: false });
    });
    expect(count(join(dir, 'results.jsonl'))).toBe(1);
  });
});
