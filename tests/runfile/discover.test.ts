/**
 * The one rule by which run folders are found (runfile/discover.ts), for `bas view` and
 * `bas leaderboard` alike (issue 37: the leaderboard looked two levels down and followed
 * linked folders, the viewer six levels without links).
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findRunFolders } from '../../src/runfile/discover.js';
import { writeRun, writeSweepPlan } from '../report/make-run.js';
import { bas, tempDir } from '../support/cli.js';

const choose = (i: number) => (i % 2 ? 'oracle' : 'blanket');

/** A folder of runs: one at the top, one three levels down, one inside a sweep, one only linked, one too deep. */
function folder(): string {
  const root = tempDir('bas-discover-');
  writeRun(join(root, 'b-top'), { n: 4, model: 'top', choose });
  writeRun(join(root, 'a', 'b', 'c', 'deep'), { n: 4, model: 'deep', choose });
  writeRun(join(root, 'sweep', 'rows-24'), { n: 4, model: 'point', choose });
  writeSweepPlan(join(root, 'sweep'), [24]);
  const elsewhere = tempDir('bas-discover-elsewhere-');
  writeRun(join(elsewhere, 'linked'), { n: 4, model: 'linked', choose });
  symlinkSync(join(elsewhere, 'linked'), join(root, 'link-to-run'));
  writeRun(join(root, '1', '2', '3', '4', '5', '6', 'too-deep'), { n: 4, model: 'too-deep', choose });
  // A run folder whose results file is a link: found, so that reading it can say why it is refused.
  mkdirSync(join(root, 'linked-file'));
  symlinkSync('/etc/passwd', join(root, 'linked-file', 'results.jsonl'));
  writeFileSync(join(root, 'note.txt'), 'not a run');
  // A run just started: run.json, no results yet.
  mkdirSync(join(root, 'just-started'));
  writeFileSync(join(root, 'just-started', 'run.json'), '{}');
  return root;
}

describe('finding run folders', () => {
  it('goes six levels down, in name order, never into a linked folder, and says when it stopped short', () => {
    const root = folder();
    const found = findRunFolders(root);
    expect(found.runs.map((r) => r.id)).toEqual([
      'a/b/c/deep',
      'b-top',
      'just-started',
      'linked-file',
      'sweep/rows-24',
    ]);
    expect(found.runs.find((r) => r.id === 'sweep/rows-24')!.sweep).toBe('sweep');
    expect(found.sweeps.map((s) => s.id)).toEqual(['sweep']);
    expect(found.truncated).toBe(true);
  });

  it('is the rule of bas leaderboard: a run three levels down ranks, a linked folder inside is not looked into', async () => {
    const root = folder();
    const r = await bas(['leaderboard', root, '--json']);
    expect(r.code).toBe(0);
    const models = (JSON.parse(r.stdout) as { groups: Array<{ runs: Array<{ name: string }> }> }).groups.flatMap((g) =>
      g.runs.map((row) => row.name),
    );
    expect(models.sort()).toEqual(['deep', 'point', 'top']);
    // Found but not a run's yet, or refused: each left out with its reason, the rest ranked.
    expect(r.stderr).toMatch(/linked-file left out: .*symbolic link/);
    expect(r.stderr).toMatch(/just-started left out: .*has no results\.jsonl/);
    // A linked run folder named itself is the user's choice, and is read.
    const named = await bas(['leaderboard', join(root, 'link-to-run'), '--json']);
    expect(named.code).toBe(0);
    expect(named.stdout).toContain('linked');
  });
});
