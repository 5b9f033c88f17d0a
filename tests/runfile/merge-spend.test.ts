/**
 * `bas merge` keeps what each input's sessions spent beside their records (`sessions[].spend`:
 * the usage of rollouts a stop left unrecorded, requests abandoned in flight), so the merged
 * run's summary and cost count it as the shards' own did. It used to drop it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runEval } from '../../src/index.js';
import { mergeRuns } from '../../src/runfile/merge.js';
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
});

describe('bas merge and sessions[].spend', () => {
  it('keeps every input session with its spend, and the merged summary counts it', async () => {
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
    expect(saved.sessions).toHaveLength(2);
    expect(saved.sessions.map((s: { spend: unknown }) => s.spend)).toEqual(
      expect.arrayContaining([spend(1, 100, 50), spend(2, 200, 100)]),
    );
    expect(m.summary.tokens.in_flight).toEqual({ requests: 3, prompt: 300, completion: 150 });
    expect(m.summary.tokens.unrecorded).toMatchObject({ prompt: 30, completion: 15, total: 45, lines: 3 });
    // ...and a resume of the merged run (nothing left) reports the same
    const again = await runEval({}, { resume: out });
    expect(again.summary.tokens.in_flight).toEqual({ requests: 3, prompt: 300, completion: 150 });
  });
});
