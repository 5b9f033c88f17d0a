import {
  appendFileSync,
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countPending, pendingPairs, readRecorded } from '../../src/engine/session.js';
import { RunFolder } from '../../src/runfile/run-folder.js';
import { buildRunFolder } from '../../src/runfile/build.js';
import { repairTail, ResultStore, writeRunInfo, type RunInfo } from '../../src/runfile/store.js';
import type { RolloutRecord } from '../../src/runfile/record.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'bas-store-'));
const ok = (index: number, rollout = 0, reward = 1): RolloutRecord => ({
  index,
  rollout,
  reward,
  rewards: { bas_correct: reward, fault_audit: reward },
  metrics: { bas_label_accuracy: 1, fault_precision: 1, fault_recall: 1, num_flagged: 1, parsed: 1 },
  error: null,
});
const bad = (index: number, rollout = 0): RolloutRecord => ({
  index,
  rollout,
  reward: null,
  rewards: null,
  metrics: null,
  error: { type: 'provider', message: 'x' },
});

describe('ResultStore', () => {
  it('appends one line per record and refuses a folder that holds a run', () => {
    const dir = tmp();
    const s = ResultStore.create(dir);
    s.append(ok(0));
    s.append(bad(1));
    s.release();
    const lines = readFileSync(join(dir, 'results.jsonl'), 'utf8').split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toBe('');
    expect(() => ResultStore.create(dir)).toThrow(/--resume/);
    // The look happens under the lock, and a refusal gives the lock back.
    expect(existsSync(join(dir, '.bas.lock'))).toBe(false);
  });

  it('writes the records of one turn together, as soon as that turn ends', async () => {
    const dir = tmp();
    const file = join(dir, 'results.jsonl');
    const s = ResultStore.create(dir);
    s.append(ok(0));
    s.append(ok(1));
    expect(readFileSync(file, 'utf8')).toBe('');
    await new Promise<void>((r) => setImmediate(r));
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(2);
    // A long burst does not pile up in memory: 64 KB go out at once, whatever the turn.
    const big = { ...ok(2), reply: 'x'.repeat(70_000) } as RolloutRecord;
    s.append(big);
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(3);
    s.append(ok(3));
    s.close();
    expect(
      readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).index),
    ).toEqual([0, 1, 2, 3]);
  });

  /** Makes the store's descriptor refuse writes, as a full disk would. */
  function breakWrites(store: ResultStore, dir: string): void {
    const s = store as unknown as { fd: number };
    closeSync(s.fd);
    s.fd = openSync(join(dir, 'results.jsonl'), 'r');
  }
  const tick = () => new Promise<void>((r) => setImmediate(r));

  /** A store whose first batched write, made at the end of the turn, has failed. */
  async function storeAfterFailedWrite(): Promise<ResultStore> {
    const dir = tmp();
    const s = ResultStore.create(dir);
    breakWrites(s, dir);
    s.append(ok(0));
    await tick();
    return s;
  }

  it('a write that fails between turns is reported by the next append, once', async () => {
    const s = await storeAfterFailedWrite();
    expect(() => s.append(ok(1))).toThrow(
      /cannot write .*results\.jsonl: the file is not open for this \(bad descriptor\)/,
    );
    expect(() => s.close()).not.toThrow();
  });

  it('a write that fails after the last append is reported by close()', async () => {
    const s = await storeAfterFailedWrite();
    expect(() => s.close()).toThrow(/cannot write .*results\.jsonl/);
  });

  it('a folder build whose writes fail leaves nothing behind', async () => {
    const parent = tmp();
    const out = join(parent, 'merged');
    const build = buildRunFolder(out, '--output', async (store) => {
      breakWrites(store, (store as unknown as { dir: string }).dir);
      store.append(ok(0));
      await tick();
      store.append(ok(1));
      return {} as RunInfo;
    });
    await expect(build).rejects.toThrow(/cannot write/);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(parent)).toEqual([]);
  });

  it('a folder build that fails with records still queued reports its own error and leaves nothing', async () => {
    const parent = tmp();
    const out = join(parent, 'merged');
    const build = buildRunFolder(out, '--output', (store) => {
      breakWrites(store, (store as unknown as { dir: string }).dir);
      store.append(ok(0));
      throw new Error('input 2 disagrees');
    });
    await expect(build).rejects.toThrow('input 2 disagrees');
    expect(readdirSync(parent)).toEqual([]);
  });

  it('keeps the folder locked after close() until release(), so the final run.json is still ours', () => {
    const dir = tmp();
    const s = ResultStore.create(dir);
    s.append(ok(0));
    s.close();
    expect(existsSync(join(dir, '.bas.lock'))).toBe(true);
    s.release();
    expect(existsSync(join(dir, '.bas.lock'))).toBe(false);
  });

  it('writes run.json atomically, leaving no temporary file', () => {
    const dir = tmp();
    writeRunInfo(dir, { status: 'running' } as RunInfo);
    writeRunInfo(dir, { status: 'complete' } as RunInfo);
    expect(readdirSync(dir)).toEqual(['run.json']);
    expect(JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')).status).toBe('complete');
  });
});

describe('torn lines and resume', () => {
  it('repairTail cuts a torn last line and nothing else', () => {
    const dir = tmp();
    const f = join(dir, 'results.jsonl');
    writeFileSync(f, `${JSON.stringify(ok(0))}\n${JSON.stringify(ok(1))}\n{"index": 2, "rol`);
    expect(repairTail(f)).toBe(true);
    expect(readFileSync(f, 'utf8').split('\n')).toHaveLength(3);
    expect(repairTail(f)).toBe(false);
  });

  it('a resumed session keeps the last line per pair: errored pairs run again, finished ones do not', async () => {
    const dir = tmp();
    const s = ResultStore.create(dir);
    [ok(0), bad(1), ok(2), bad(2), bad(3), ok(3)].forEach((r) => s.append(r));
    s.release();
    appendFileSync(join(dir, 'results.jsonl'), '{"index": 4, "roll');
    const folder = RunFolder.resume(dir, {} as RunInfo);
    const session = await readRecorded(dir, () => {});
    folder.release();
    expect([...pendingPairs(5, 1, session.finished)]).toEqual([
      [1, 0],
      [2, 0],
      [4, 0],
    ]);
    expect(countPending(5, 1, session.finished)).toBe(3);
    const summary = await session.summary();
    expect(summary.counts.rollouts).toBe(4);
    expect(summary.counts.completed).toBe(2);
    expect(summary.counts).toMatchObject({ lines: 6, replaced: 2 });
  });

  it('a resumed session summarises each rollout once: re-run pairs by their new line, the others by their old one', async () => {
    const dir = tmp();
    const s = ResultStore.create(dir);
    [bad(0), bad(1), ok(2)].forEach((r) => s.append(r));
    s.release();
    const session = await readRecorded(dir, () => {}, { n: 3, rollouts: 1, shard: null, indices: null });
    session.add(ok(0)); // task 1 is not reached: the run stopped
    const summary = await session.summary();
    expect(summary.counts).toMatchObject({ rollouts: 3, completed: 2, errored: 1, lines: 4, replaced: 1 });
  });
});
