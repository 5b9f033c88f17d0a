/**
 * Finding a rollout without the index (seek.ts): in a file written in nearly task order (the
 * order a run with -c C leaves, simulated), any pair is found in a few reads; a pair written
 * far out of order, or twice, is not guessed at; and a run whose file may hold a pair twice (a
 * resume, a merge, a scored run) is never sought. The server answers a far rollout by a seek
 * while the first read of its file has not reached it.
 */
import { closeSync, openSync, readSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Catalog } from '../../src/view/catalog.js';
import { orderedConcurrency, seekRecord, Seeker, type SeekPlan } from '../../src/view/seek.js';
import { rolloutAnswer } from '../../src/view/api.js';
import { makeRecord, SMALL_CONFIG, writeRun } from '../report/make-run.js';
import { tempDir } from '../support/cli.js';

const ROLLOUTS = 2;
const made = new Map<string, string>();
/** The line of a pair (made once: a record's making is the slow part). */
function line(i: number, r: number): string {
  const key = `${i}:${r}`;
  let text = made.get(key);
  if (text === undefined) {
    text = JSON.stringify(makeRecord(SMALL_CONFIG, i, r, 'm', (i + r) % 3 ? 'oracle' : 'blanket'));
    made.set(key, text);
  }
  return text;
}

/** A seeded stream of numbers in [0, 1). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

/**
 * The pairs of `n` tasks in the order a run with `concurrency` in flight writes them: pairs
 * are handed out in order, and each write is of one of those in flight, drawn at random.
 */
function runOrder(n: number, concurrency: number, seed: number): Array<[number, number]> {
  const rand = lcg(seed);
  const out: Array<[number, number]> = [];
  const flight: Array<[number, number]> = [];
  let next = 0;
  while (out.length < n * ROLLOUTS) {
    while (flight.length < concurrency && next < n * ROLLOUTS) {
      flight.push([Math.floor(next / ROLLOUTS), next % ROLLOUTS]);
      next++;
    }
    out.push(flight.splice(Math.floor(rand() * flight.length), 1)[0]!);
  }
  return out;
}

function writeLines(path: string, pairs: Array<[number, number]>): void {
  writeFileSync(path, pairs.map(([i, r]) => line(i, r)).join('\n') + '\n');
}

/** Seeks (index, rollout) in the file, counting reads. */
function seek(path: string, index: number, rollout: number, concurrency = 8): { found: number | null; reads: number } {
  const fd = openSync(path, 'r');
  try {
    const plan: SeekPlan = { index, rollout, rollouts: ROLLOUTS, concurrency, from: 0, to: statSync(path).size };
    const seeker = new Seeker((into, at) => readSync(fd, into, 0, into.length, at), plan);
    const f = seeker.find();
    if (f !== null) expect([f.record.index, f.record.rollout]).toEqual([index, rollout]);
    return { found: f === null ? null : f.offset, reads: seeker.reads };
  } finally {
    closeSync(fd);
  }
}

describe('seek', () => {
  const N = 1500;

  it('finds every pair of a file written in nearly task order, in a few reads', () => {
    const path = join(tempDir('bas-seek-'), 'results.jsonl');
    writeLines(path, runOrder(N, 8, 1));
    const size = statSync(path).size;
    // The binary search halves the file down to 64 KB, then one scan.
    const bound = Math.ceil(Math.log2(size / 65536)) + 2;
    for (const i of [0, 1, 2, 500, 777, 1023, N - 2, N - 1])
      for (const r of [0, 1]) {
        const { found, reads } = seek(path, i, r);
        expect(found, `${i}:${r}`).not.toBeNull();
        expect(reads).toBeLessThanOrEqual(bound);
      }
    expect(seek(path, N, 0).found).toBeNull();
  });

  it('does not find a pair written far out of order, nor one written twice', () => {
    const path = join(tempDir('bas-seek-'), 'results.jsonl');
    const order = runOrder(N, 8, 2).filter(([i]) => i !== 700);
    // Task 700's rollout 0 is written last (a laggard), its rollout 1 twice near its place.
    const at = order.findIndex(([i]) => i === 701);
    order.splice(at, 0, [700, 1], [700, 1]);
    order.push([700, 0]);
    writeLines(path, order);
    expect(seek(path, 700, 0).found).toBeNull();
    expect(seek(path, 700, 1).found).toBeNull();
    expect(seek(path, 699, 0).found).not.toBeNull();
    expect(seek(path, 701, 1).found).not.toBeNull();
    // Searched from where an index stopped, the laggard at the end is found.
    const size = statSync(path).size;
    const last = size - line(700, 0).length - 1;
    expect(seekRecord(path, { index: 700, rollout: 0, rollouts: ROLLOUTS, concurrency: 8, from: last })?.offset).toBe(
      last,
    );
  });

  it('is used only for a run whose file holds each pair once, in order', () => {
    const base = { n: 10, rollouts: 1, indices: null, concurrency: 16 };
    expect(orderedConcurrency(base)).toBe(16);
    expect(orderedConcurrency({ ...base, concurrency: undefined })).toBe(64);
    expect(orderedConcurrency({ ...base, pace: { max: 40 } })).toBe(40);
    expect(orderedConcurrency({ ...base, sessions: [{}] })).toBe(16);
    expect(orderedConcurrency({ ...base, sessions: [{}, {}] })).toBeNull();
    expect(orderedConcurrency({ ...base, resumed_at: ['2026-01-01T00:00:00Z'] })).toBeNull();
    expect(orderedConcurrency({ ...base, merged_from: [] })).toBeNull();
    expect(orderedConcurrency({ ...base, indices: [1, 2] })).toBeNull();
    expect(orderedConcurrency(null)).toBeNull();
  });

  it("answers a far rollout by a seek while the file's first read has not reached it, and never for a resumed run", async () => {
    const root = tempDir('bas-seek-view-');
    const choose = (i: number) => (i % 3 ? 'oracle' : 'blanket');
    writeRun(join(root, 'once'), { n: 400, model: 'm', choose, runJson: { concurrency: 4 } });
    writeRun(join(root, 'resumed'), { n: 400, model: 'm', choose, runJson: { sessions: [{}, {}] } });
    // Nothing is waited for: every read of a file goes on in the background.
    const catalog = new Catalog(root, { store: null, waitBytes: 0 });
    const q = (run: string) => new URLSearchParams({ run, index: '399' });
    const once = (await rolloutAnswer(catalog, q('once'))) as { index: number };
    expect(once.index).toBe(399);
    await expect(rolloutAnswer(catalog, q('resumed'))).rejects.toThrow(/not among those read so far/);
    const resumed = await (await catalog.run('resumed'))!.rollouts();
    // Once read, the index answers.
    await resumed.refresh();
    expect(((await rolloutAnswer(catalog, q('resumed'))) as { index: number }).index).toBe(399);
  });
});
