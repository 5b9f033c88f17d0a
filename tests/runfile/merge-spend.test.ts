/**
 * `bas merge` keeps what each input's sessions spent beside their records (`sessions[].spend`:
 * the usage of rollouts a stop left unrecorded, requests abandoned in flight) in
 * `merged_from[].spend`, so the merged run's summary, its reports and a resume's budget count it
 * as the shards' own did. It used to drop it. (A merged run keeps no sessions: shards may run
 * side by side, so their times do not add up.)
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runEval } from '../../src/index.js';
import { mergeRuns } from '../../src/runfile/merge.js';
import { readRun } from '../../src/report/read.js';
import { tempDir } from '../support/cli.js';

const spend = (requests: number, prompt: number, completion: number) => ({
  unrecorded: {
    prompt: 10 * requests,
    completion: 5 * requests,
    total: 15 * requests,
    reasoning: 0,
    cached: 0,
    lines: requests,
  },
  in_flight: { requests, prompt, completion },
  // Replies billed without usage, charged at their worst case (issue 36 §2).
  unreported: { requests, prompt: 7 * requests, completion: 3 * requests },
});

describe('bas merge and sessions[].spend', () => {
  it("keeps every input's spend, and the merged summary, report and resume count it", async () => {
    const root = tempDir();
    const shards = [1, 2].map((i) => join(root, `shard-${i}`));
    for (const [k, dir] of shards.entries())
      await runEval({ model: 'builtin:oracle', n: 6, shard: `${k + 1}/2`, output: dir, task: { num_transactions: 6 } });
    // As a stopped session of each shard would have written it.
    for (const [k, dir] of shards.entries()) {
      const file = join(dir, 'run.json');
      const run = JSON.parse(readFileSync(file, 'utf8'));
      run.sessions[0].spend = spend(k + 1, 100 * (k + 1), 50 * (k + 1));
      writeFileSync(file, JSON.stringify(run));
    }
    const out = join(root, 'merged');
    const m = await mergeRuns(shards, out, []);
    const saved = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8'));
    expect(saved.sessions).toBeUndefined();
    expect(saved.merged_from.map((m: { spend: unknown }) => m.spend)).toEqual([spend(1, 100, 50), spend(2, 200, 100)]);
    expect((await readRun(out, () => {})).summary.tokens.in_flight).toEqual({
      requests: 3,
      prompt: 300,
      completion: 150,
    });
    expect(m.summary.tokens.in_flight).toEqual({ requests: 3, prompt: 300, completion: 150 });
    expect(m.summary.tokens.unrecorded).toMatchObject({ prompt: 30, completion: 15, total: 45, lines: 3 });
    expect(m.summary.tokens.unreported).toEqual({ requests: 3, prompt: 21, completion: 9 });
    // ...and a resume of the merged run (nothing left) reports the same
    const again = await runEval({}, { resume: out });
    expect(again.summary.tokens.in_flight).toEqual({ requests: 3, prompt: 300, completion: 150 });
  });
});
