/**
 * The winning records of a results file: the last line of a pair counts, a torn last line is
 * skipped, a record that cannot belong to its run is set aside (or refused) and never counted.
 */
import { statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RolloutRecord } from '../../src/runfile/record.js';
import { foldWinningRecords, runBounds, Winners } from '../../src/runfile/winners.js';

/** Both passes of the reader: the winners in file order, and the lines they replaced. */
async function readWinningRecords(
  path: string,
  fn: (r: RolloutRecord, line: number) => void,
  opts: Parameters<typeof Winners.scan>[1] & { onReplaced?: (r: RolloutRecord, line: number) => void } = {},
) {
  const w = await Winners.scan(path, opts);
  await w.forEach(fn, opts.onReplaced);
  return w.counts;
}
import { done, failed } from '../report/fixtures.js';
import { tempDir } from '../support/cli.js';

function resultsFile(lines: Array<RolloutRecord | string>): string {
  const file = join(tempDir(), 'results.jsonl');
  writeFileSync(file, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
  return file;
}

async function winners(file: string, opts: Parameters<typeof readWinningRecords>[2] = {}) {
  const got: Array<[number, number, number, string | null]> = [];
  const counts = await readWinningRecords(
    file,
    (r, line) => got.push([r.index, r.rollout ?? 0, line, r.error?.type ?? null]),
    { warn: () => {}, ...opts },
  );
  return { got, counts };
}

describe('the last line of a pair wins', () => {
  it('a re-run of an errored rollout replaces it; winners come in file order', async () => {
    const file = resultsFile([
      failed(0, 0, 'rate_limit'),
      done(1, 0, { bas: 0, audit: 0.5 }),
      done(0, 0, { bas: 1, audit: 1 }),
    ]);
    const { got, counts } = await winners(file);
    expect(got).toEqual([
      [1, 0, 2, null],
      [0, 0, 3, null],
    ]);
    expect(counts).toMatchObject({ lines: 3, replaced: 1, rollouts: 2, setAside: 0 });
    const replaced: number[] = [];
    await readWinningRecords(file, () => {}, { warn: () => {}, onReplaced: (_r, line) => replaced.push(line) });
    expect(replaced).toEqual([1]);
  });

  it('a later error replaces an earlier score too', async () => {
    const file = resultsFile([done(0, 0, { bas: 1, audit: 1 }), failed(0, 0, 'network')]);
    expect((await winners(file)).got).toEqual([[0, 0, 2, 'network']]);
  });

  it('with bounds the pairs live in a typed array, and the rule is the same', async () => {
    const file = resultsFile([
      failed(1, 1, 'timeout'),
      done(0, 0, { bas: 1, audit: 1 }),
      done(1, 1, { bas: 1, audit: 1 }),
    ]);
    const bounds = runBounds({ n: 2, rollouts: 2 });
    const { got, counts } = await winners(file, { bounds });
    expect(got).toEqual([
      [0, 0, 2, null],
      [1, 1, 3, null],
    ]);
    expect(counts.rollouts).toBe(2);
    const w = await Winners.scan(file, { bounds, warn: () => {} });
    const pairs: Array<[number, number]> = [];
    w.forEachPair((i, r) => pairs.push([i, r]));
    expect(pairs).toEqual([
      [0, 0],
      [1, 1],
    ]);
  });

  it('a torn last line is skipped with one warning, and the earlier line of its pair still counts', async () => {
    const whole = JSON.stringify(done(0, 0, { bas: 0, audit: 0 }));
    // Torn: cut off before its newline (one that ended with a newline would be damage).
    const file = resultsFile([done(0, 0, { bas: 1, audit: 1 }), whole.slice(0, 40)]);
    truncateSync(file, statSync(file).size - 1);
    const warnings: string[] = [];
    const { got } = await winners(file, { warn: (m) => warnings.push(m) });
    expect(got).toEqual([[0, 0, 1, null]]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/skipped line 2, cut off mid-write/);
  });
});

describe('records that cannot belong to their run', () => {
  const lines = () => [
    done(0, 0, { bas: 1, audit: 1 }),
    done(12, 0, { bas: 1, audit: 1 }), // past n = 10
    done(3, 2, { bas: 1, audit: 1 }), // past 2 rollouts
    done(1, 0, { bas: 1, audit: 1 }), // outside shard 1/2 (even tasks)
    done(2, 1, { bas: 0, audit: 1 }),
  ];

  it('are set aside and counted, never counted as rollouts', async () => {
    const warnings: string[] = [];
    const { got, counts } = await winners(resultsFile(lines()), {
      bounds: runBounds({ n: 10, rollouts: 2, shard: { index: 1, count: 2 } }),
      warn: (m) => warnings.push(m),
    });
    expect(got.map(([i, r]) => [i, r])).toEqual([
      [0, 0],
      [2, 1],
    ]);
    expect(counts).toMatchObject({ rollouts: 2, setAside: 3, firstSetAside: { line: 2 } });
    expect(counts.firstSetAside!.reason).toBe("task 12 is outside the run's 10 tasks (0 to 9)");
    expect(warnings.join('\n')).toMatch(/set aside 3 records that cannot belong to this run \(first: line 2/);
  });

  it('are refused with the file and line when asked', async () => {
    const file = resultsFile(lines());
    await expect(winners(file, { bounds: runBounds({ n: 10, rollouts: 2 }), outside: 'refuse' })).rejects.toThrow(
      `${file}: line 2 cannot belong to its run: task 12 is outside the run's 10 tasks (0 to 9)`,
    );
  });

  it("a scored run's list of tasks bounds its indices", async () => {
    const file = resultsFile([done(5, 0, { bas: 1, audit: 1 }), done(6, 0, { bas: 1, audit: 1 })]);
    const { got, counts } = await winners(file, { bounds: runBounds({ n: 1, rollouts: 1, indices: [5] }) });
    expect(got.map(([i]) => i)).toEqual([5]);
    expect(counts.firstSetAside!.reason).toBe("task 6 is not one of the run's 1 tasks");
  });

  it.each([
    [
      'rewards.bas_correct',
      (r: RolloutRecord) => (r.rewards!.bas_correct = 1.3),
      '"rewards.bas_correct" is 1.3, outside 0..1',
    ],
    ['reward', (r: RolloutRecord) => (r.reward = -0.5), '"reward" is -0.5, outside 0..1'],
    [
      'metrics.num_flagged',
      (r: RolloutRecord) => (r.metrics!.num_flagged = Infinity),
      '"metrics.num_flagged" is Infinity, not a count',
    ],
    [
      'metrics.fault_recall',
      (r: RolloutRecord) => (r.metrics!.fault_recall = 2),
      '"metrics.fault_recall" is 2, outside 0..1',
    ],
    [
      'detail.consistency.bas_consistent',
      (r: RolloutRecord) =>
        (r.detail!.consistency = {
          bas_consistent: 2 as 1,
          bas_error: null,
          labels: { G1: null, '1A': null, '1B': null, net: null },
        }),
      '"detail.consistency.bas_consistent" is 2, not 0 or 1',
    ],
  ])('a score outside its range (%s) is refused with file and line', async (_name, spoil, reason) => {
    const bad = done(1, 0, { bas: 1, audit: 1 });
    spoil(bad);
    // JSON has no Infinity, but 1e999 parses to it.
    const text = JSON.stringify(bad)
      .replace('null', 'null')
      .replace(/"num_flagged":null/, '"num_flagged":1e999');
    const file = resultsFile([done(0, 0, { bas: 1, audit: 1 }), text, done(2, 0, { bas: 1, audit: 1 })]);
    await expect(winners(file)).rejects.toThrow(`${file}: line 2 is not a rollout record: ${reason}`);
  });
});

describe('folding the winners', () => {
  /** A fold that lists what it sees, and counts how many folds were started. */
  async function fold(file: string, bounds = runBounds({ n: 4, rollouts: 2 })) {
    let starts = 0;
    const { fold: f, counts } = await foldWinningRecords(
      file,
      () => {
        starts++;
        const seen: Array<[number, number, number, string]> = [];
        return {
          seen,
          add: (r: RolloutRecord, line: number) => seen.push([r.index, r.rollout ?? 0, line, 'won']),
          addReplaced: (r: RolloutRecord, line: number) => seen.push([r.index, r.rollout ?? 0, line, 'replaced']),
        };
      },
      { bounds, warn: () => {} },
    );
    return { seen: f.seen, counts, starts };
  }

  it('folds in the first pass when every pair has one line', async () => {
    const file = resultsFile([
      done(1, 0, { bas: 1, audit: 1 }),
      failed(0, 1, 'network'),
      done(0, 0, { bas: 0, audit: 0 }),
    ]);
    const { seen, starts, counts } = await fold(file);
    expect(starts).toBe(1);
    expect(seen).toEqual([
      [1, 0, 1, 'won'],
      [0, 1, 2, 'won'],
      [0, 0, 3, 'won'],
    ]);
    expect(counts).toMatchObject({ lines: 3, replaced: 0, rollouts: 3 });
  });

  it('starts again, fed by a second pass, when a pair has two lines', async () => {
    const file = resultsFile([
      failed(0, 0, 'timeout'),
      done(1, 0, { bas: 1, audit: 1 }),
      done(0, 0, { bas: 1, audit: 1 }),
    ]);
    const { seen, starts } = await fold(file);
    expect(starts).toBe(2);
    expect(seen).toEqual([
      [0, 0, 1, 'replaced'],
      [1, 0, 2, 'won'],
      [0, 0, 3, 'won'],
    ]);
  });

  it('sees what the two-pass reader hands over, on any file', async () => {
    const line = fc.tuple(fc.nat(5), fc.nat(2), fc.boolean());
    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 30 }), async (lines) => {
        const file = resultsFile(
          lines.map(([i, k, ok]) => (ok ? done(i, k, { bas: 1, audit: 1 }) : failed(i, k, 'network'))),
        );
        const bounds = runBounds({ n: 4, rollouts: 2 });
        const expected: Array<[number, number, number, string]> = [];
        await readWinningRecords(file, (r, l) => expected.push([r.index, r.rollout ?? 0, l, 'won']), {
          bounds,
          warn: () => {},
          onReplaced: (r, l) => expected.push([r.index, r.rollout ?? 0, l, 'replaced']),
        });
        expect((await fold(file, bounds)).seen).toEqual(expected);
      }),
      { numRuns: 100 },
    );
  });
});
