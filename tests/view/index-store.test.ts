/**
 * Rollout indexes kept between starts (index-store.ts): a kept index is used and only what the
 * file gained is read; a file replaced or cut is read anew; a damaged entry is a miss; nothing
 * is written in the run folder. And a large file is read in the background, its rollouts
 * listed as they are read.
 */
import { appendFileSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Catalog } from '../../src/view/catalog.js';
import { IndexStore } from '../../src/view/index-store.js';
import { RolloutIndex } from '../../src/view/rollout-index.js';
import { makeRecord, SMALL_CONFIG, writeRun } from '../report/make-run.js';
import { tempDir } from '../support/cli.js';

const BOUNDS = { n: 100, rollouts: 1, shard: null, indices: null };
const KEY = JSON.stringify(BOUNDS);
const line = (i: number, model = 'm') =>
  `${JSON.stringify(makeRecord(SMALL_CONFIG, i, 0, model, i % 3 ? 'oracle' : 'blanket'))}\n`;

/** A results file of tasks [from, to). */
function lines(from: number, to: number, model = 'm'): string {
  let out = '';
  for (let i = from; i < to; i++) out += line(i, model);
  return out;
}

/** An index of `path` built (or restored) through `store`, read to the end; with how many bytes this read took from the file. */
async function indexed(
  path: string,
  store: IndexStore,
): Promise<{ index: RolloutIndex; restored: boolean; read: number }> {
  const index = new RolloutIndex(path, BOUNDS);
  const restored = await store.load(index, KEY);
  const from = index.indexedBytes;
  index.checkpoint = (ix, done) => store.checkpoint(ix, KEY, done);
  await index.refresh();
  return { index, restored, read: index.indexedBytes - from };
}

function rows(index: RolloutIndex) {
  return [...index.select({})].map((s) => index.row(s));
}

describe('IndexStore', () => {
  it('keeps an index, and reads only what the file gained since', async () => {
    const dir = tempDir('bas-view-store-');
    const path = join(dir, 'results.jsonl');
    writeFileSync(path, lines(0, 40));
    const store = new IndexStore(join(dir, 'cache'), 0);
    const first = await indexed(path, store);
    expect(first).toMatchObject({ restored: false, read: statSync(path).size });
    const again = await indexed(path, new IndexStore(join(dir, 'cache'), 0));
    expect(again.restored).toBe(true);
    expect(again.read).toBe(0);
    expect(rows(again.index)).toEqual(rows(first.index));
    // A rollout read back through a kept index is the record itself.
    expect((await again.index.record(again.index.slotOf(7, 0))).index).toBe(7);
    appendFileSync(path, lines(40, 55));
    const grown = await indexed(path, new IndexStore(join(dir, 'cache'), 0));
    expect(grown.restored).toBe(true);
    expect(grown.read).toBe(Buffer.byteLength(lines(40, 55)));
    expect(grown.index.rollouts).toBe(55);
    const fresh = new RolloutIndex(path, BOUNDS);
    await fresh.refresh();
    expect(rows(grown.index)).toEqual(rows(fresh));
  });

  it('reads a file anew when it was replaced, cut or rewritten under the same name', async () => {
    const dir = tempDir('bas-view-store-');
    const path = join(dir, 'results.jsonl');
    writeFileSync(path, lines(0, 30));
    await indexed(path, new IndexStore(join(dir, 'cache'), 0));
    // Rewritten in place, longer: the same inode, but other bytes where reading stopped.
    writeFileSync(path, lines(0, 30, 'other') + lines(30, 35, 'other'));
    const rewritten = await indexed(path, new IndexStore(join(dir, 'cache'), 0));
    expect(rewritten.restored).toBe(false);
    expect(rewritten.index.rollouts).toBe(35);
    // Cut below what was read.
    truncateSync(path, Buffer.byteLength(lines(0, 10, 'other')));
    const cut = await indexed(path, new IndexStore(join(dir, 'cache'), 0));
    expect(cut.restored).toBe(false);
    expect(cut.index.rollouts).toBe(10);
  });

  it('takes a damaged entry for a miss, never an error', async () => {
    const dir = tempDir('bas-view-store-');
    const path = join(dir, 'results.jsonl');
    writeFileSync(path, lines(0, 20));
    const store = new IndexStore(join(dir, 'cache'), 0);
    await indexed(path, store);
    const entry = store.entryOf(path);
    const good = readFileSync(entry);
    const damaged: Buffer[] = [
      good.subarray(0, good.length - 3), // cut short
      Buffer.concat([good, Buffer.from('xx')]), // too long
      Buffer.from('not an index at all'),
      Buffer.alloc(0),
      (() => {
        const b = Buffer.from(good);
        b.write('{ broken', 12, 'latin1'); // its header is no longer JSON
        return b;
      })(),
      (() => {
        // A header that says there is one more rollout than the columns hold.
        const text = good.subarray(12, 12 + good.readUInt32LE(8)).toString('utf8');
        const h = JSON.parse(text);
        h.state.rollouts += 1;
        const t = Buffer.from(JSON.stringify(h));
        const fixed = Buffer.from(good.subarray(0, 12));
        fixed.writeUInt32LE(t.length, 8);
        return Buffer.concat([fixed, t, good.subarray(12 + text.length)]);
      })(),
    ];
    for (const bytes of damaged) {
      writeFileSync(entry, bytes);
      const { restored, index } = await indexed(path, new IndexStore(join(dir, 'cache'), 0));
      expect(restored).toBe(false);
      expect(index.rollouts).toBe(20);
    }
  });

  it('keeps nothing in the run folder, and nothing for a small file under its threshold', async () => {
    const dir = tempDir('bas-view-store-');
    writeRun(join(dir, 'runs', 'a'), { n: 12, model: 'm', choose: () => 'oracle' });
    const before = readdirSync(join(dir, 'runs', 'a')).sort();
    const cache = join(dir, 'cache');
    const catalog = new Catalog(join(dir, 'runs'), { store: new IndexStore(cache, 0) });
    const run = (await catalog.run('a'))!;
    await run.wholeIndex();
    expect(readdirSync(join(dir, 'runs', 'a')).sort()).toEqual(before);
    expect(readdirSync(cache).filter((f) => f.endsWith('.idx'))).toHaveLength(1);
    const quiet = join(dir, 'quiet');
    const big = new Catalog(join(dir, 'runs'), { store: new IndexStore(quiet, 1 << 30) });
    await (await big.run('a'))!.wholeIndex();
    expect(() => readdirSync(quiet)).toThrow();
  });
});

describe('a kept report', () => {
  it("opens a run unchanged since without its summary's fold, and is not used once the file grew", async () => {
    const dir = tempDir('bas-view-report-');
    const runs = join(dir, 'runs');
    writeRun(join(runs, 'a'), { n: 12, model: 'm', choose: (i) => (i % 2 ? 'oracle' : 'blanket') });
    const cache = join(dir, 'cache');
    const first = (await new Catalog(runs, { store: new IndexStore(cache, 0) }).run('a'))!;
    const folded = await first.summaryNow();
    expect(first.data).not.toBeNull(); // folded
    const second = (await new Catalog(runs, { store: new IndexStore(cache, 0) }).run('a'))!;
    const kept = await second.summaryNow();
    expect(second.data).toBeNull(); // not folded: the kept report
    expect(kept!.text).toBe(folded!.text);
    // A later line of task 3 (blanket where it was oracle) replaces its first: other figures.
    appendFileSync(join(runs, 'a', 'results.jsonl'), line(3));
    const third = (await new Catalog(runs, { store: new IndexStore(cache, 0) }).run('a'))!;
    const grown = await third.summaryNow();
    expect(third.data).not.toBeNull();
    expect(grown!.report.summary.counts.replaced).toBe(1);
    expect(grown!.text).not.toBe(folded!.text);
  });
});

describe('a large results file', () => {
  it('is read in the background: the index answers at once with what it has read, and the rest follows', async () => {
    const dir = tempDir('bas-view-bg-');
    writeRun(join(dir, 'a'), { n: 60, model: 'm', choose: () => 'oracle' });
    // Every file counts as large: nothing is waited for.
    const catalog = new Catalog(dir, { store: null, waitBytes: 0 });
    const run = (await catalog.run('a'))!;
    const early = await run.rollouts();
    expect(early.reading).toBe(true);
    expect(early.target).toBe(statSync(join(dir, 'a', 'results.jsonl')).size);
    expect(early.rollouts).toBeLessThan(60);
    const whole = await run.wholeIndex();
    expect(whole).toBe(early);
    expect(whole.reading).toBe(false);
    expect(whole.rollouts).toBe(60);
  });
});
