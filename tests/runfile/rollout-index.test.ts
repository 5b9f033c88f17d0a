/**
 * The rollout index of `bas view`: the last line of a pair wins (a resume's re-run), records
 * outside the run are set aside, a whole last record without its newline is kept once, and
 * a file replaced under it is read again.
 */
import { appendFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RolloutIndex } from '../../src/runfile/rollout-index.js';
import { makeRecord, SMALL_CONFIG } from '../report/make-run.js';
import { tempDir } from '../support/cli.js';

const line = (i: number, r = 0, choice: Parameters<typeof makeRecord>[4] = 'oracle') =>
  JSON.stringify(makeRecord(SMALL_CONFIG, i, r, 'm', choice));

describe('RolloutIndex', () => {
  it('keeps the last line of each pair and sets aside what cannot belong to the run', async () => {
    const file = join(tempDir('bas-index-'), 'results.jsonl');
    writeFileSync(file, [line(0, 0, { error: 'timeout' }), line(1), line(0), line(9)].join('\n') + '\n');
    const index = new RolloutIndex(dirname(file), { n: 5, rollouts: 1, shard: null, indices: null });
    await index.refresh();
    expect(index.rollouts).toBe(2);
    expect(index.setAside).toBe(1);
    const rows = [...index.select({})].map((s) => index.row(s));
    expect(rows.map((r) => [r.index, r.errored])).toEqual([
      [1, false],
      [0, false],
    ]);
    expect(index.select({ errored: true }).length).toBe(0);
    expect((await index.record(index.slotOf(0, 0))).error).toBeNull();
    expect(index.slotOf(9, 0)).toBe(-1);
  });

  it('keeps a whole last record without its newline once, when the newline comes later', async () => {
    const file = join(tempDir('bas-index-'), 'results.jsonl');
    writeFileSync(file, `${line(0)}\n${line(1)}`);
    const index = new RolloutIndex(dirname(file), null);
    await index.refresh();
    expect(index.rollouts).toBe(2);
    appendFileSync(file, `\n${line(2)}\n`);
    await index.refresh();
    expect(index.rollouts).toBe(3);
    expect(index.damaged).toBe(0);
    expect((await index.record(index.slotOf(2, 0))).index).toBe(2);
  });

  it('reads a file again from its start when it was replaced', async () => {
    const dir = tempDir('bas-index-');
    const file = join(dir, 'results.jsonl');
    writeFileSync(file, `${line(0)}\n${line(1)}\n${line(2)}\n`);
    const index = new RolloutIndex(dirname(file), null);
    await index.refresh();
    expect(index.rollouts).toBe(3);
    rmSync(file);
    writeFileSync(file, `${line(7)}\n`);
    await index.refresh();
    expect(index.rollouts).toBe(1);
    expect(index.slotOf(0, 0)).toBe(-1);
    expect(index.row(index.slotOf(7, 0)).index).toBe(7);
  });
});
