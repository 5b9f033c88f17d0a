/**
 * Finding a rollout without the index (seek.ts): in a file written in nearly task order (the
 * order a run with -c C leaves, simulated), any pair is found in a few reads; a pair written
 * far out of order, or twice, is not guessed at; a merged or scored run is never sought, and of
 * a resumed run only a completed line is taken. The server answers a far rollout by a seek
 * while the first read of its file has not reached it.
 */
import { closeSync, openSync, readSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Catalog } from '../../src/view/catalog.js';
import { seekRecord, seekTerms, Seeker, type SeekPlan } from '../../src/view/seek.js';
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

  it('is used only for a run whose file holds each pair once, and on a resumed run takes only completed lines', () => {
    const base = { n: 10, rollouts: 1, indices: null, concurrency: 16 };
    expect(seekTerms(base)).toEqual({ concurrency: 16, resumed: false });
    expect(seekTerms({ ...base, concurrency: undefined })?.concurrency).toBe(64);
    expect(seekTerms({ ...base, pace: { max: 40 } })?.concurrency).toBe(40);
    expect(seekTerms({ ...base, sessions: [{}] })?.resumed).toBe(false);
    expect(seekTerms({ ...base, sessions: [{}, {}] })?.resumed).toBe(true);
    expect(seekTerms({ ...base, resumed_at: ['2026-01-01T00:00:00Z'] })?.resumed).toBe(true);
    expect(seekTerms({ ...base, merged_from: [] })).toBeNull();
    expect(seekTerms({ ...base, indices: [1, 2] })).toBeNull();
    expect(seekTerms(null)).toBeNull();
  });

  it("answers a far rollout by a seek while the file's first read has not reached it; never a merged run's, nor a resumed run's errored line", async () => {
    const root = tempDir('bas-seek-view-');
    const choose = (i: number) => (i % 3 ? 'oracle' : 'blanket');
    writeRun(join(root, 'once'), { n: 400, model: 'm', choose, runJson: { concurrency: 4 } });
    writeRun(join(root, 'merged'), { n: 400, model: 'm', choose, runJson: { merged_from: [] } });
    // A first session stopped after task 299 with task 5 errored; the resume ran 5 again, then 300 to 399.
    const again = [line(5, 0)];
    for (let i = 300; i < 400; i++) again.push(line(i, 0));
    const first = (i: number) => (i === 5 ? { error: 'timeout' as const } : choose(i));
    const resumed = { n: 400, sessions: [{}, {}] };
    writeRun(join(root, 'resumed'), { n: 300, model: 'm', choose: first, runJson: resumed, extraLines: again });
    // Nothing is waited for: every read of a file goes on in the background.
    const catalog = new Catalog(root, { store: null, waitBytes: 0 });
    const q = (run: string, index: number) => new URLSearchParams({ run, index: String(index) });
    const answer = async (run: string, index: number) =>
      ((await rolloutAnswer(catalog, q(run, index))) as { index: number }).index;
    expect(await answer('once', 399)).toBe(399);
    expect(await answer('resumed', 399)).toBe(399);
    await expect(rolloutAnswer(catalog, q('resumed', 5))).rejects.toThrow(/not among those read so far/);
    await expect(rolloutAnswer(catalog, q('merged', 399))).rejects.toThrow(/not among those read so far/);
    // Once read, the index answers: task 5's winner is the resume's line.
    await (await (await catalog.run('resumed'))!.rollouts()).refresh();
    const five = (await rolloutAnswer(catalog, q('resumed', 5))) as { error_type: string | null };
    expect(five.error_type).toBeNull();
  });
});
