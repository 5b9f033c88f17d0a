/**
 * The folder of kept indexes does not grow without end (index-prune.ts): entries of a results
 * file gone or changed go, as do writes left unfinished; past the cap the least recently used
 * go, never the one just written; anything not named as the store names it stays.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IndexStore, reportKeyOf } from '../../src/view/index-store.js';
import { startViewServer } from '../../src/view/server.js';
import { RolloutIndex } from '../../src/view/rollout-index.js';
import { makeRecord, SMALL_CONFIG } from '../report/make-run.js';
import { tempDir } from '../support/cli.js';

const BOUNDS = { n: 100, rollouts: 1, shard: null, indices: null };
const KEY = JSON.stringify(BOUNDS);

function results(dir: string, n: number): string {
  const path = join(dir, 'results.jsonl');
  let out = '';
  for (let i = 0; i < n; i++) out += `${JSON.stringify(makeRecord(SMALL_CONFIG, i, 0, 'm', 'oracle'))}\n`;
  writeFileSync(path, out);
  return path;
}

/** Keeps the index of `path` and a report keyed by the file as it is now. */
async function keep(store: IndexStore, path: string): Promise<void> {
  const index = new RolloutIndex(path, BOUNDS);
  await store.load(index, KEY);
  index.checkpoint = (ix, done) => store.checkpoint(ix, KEY, done);
  await index.refresh();
  store.saveReport(path, reportKeyOf(path, 'run.json', 'complete')!, {
    report: {} as never,
    text: 'report',
    figures: null,
  });
}

/** The entry files of a results file in the store: index, report. */
function entryFiles(store: IndexStore, path: string): boolean[] {
  const idx = store.entryOf(path);
  return [existsSync(idx), existsSync(idx.replace(/\.idx$/, '.report.json'))];
}

/** Sets an entry's files' time `ageS` seconds back. */
function age(store: IndexStore, path: string, ageS: number): void {
  const t = new Date(Date.now() - ageS * 1000);
  const idx = store.entryOf(path);
  for (const f of [idx, idx.replace(/\.idx$/, '.report.json')]) if (existsSync(f)) utimesSync(f, t, t);
}

describe('pruning the kept indexes', () => {
  it('drops the entries of files gone or changed and unfinished writes, and leaves the rest and foreign files', async () => {
    const root = tempDir('bas-prune-');
    const cache = join(root, 'cache');
    const store = new IndexStore(cache, 0);
    const paths = ['kept', 'gone', 'replaced', 'grown', 'unnamed'].map((name) => {
      const dir = join(root, name);
      mkdirSync(dir);
      return results(dir, 20);
    });
    for (const p of paths) await keep(store, p);
    const [kept, gone, replaced, grown, unnamed] = paths as [string, string, string, string, string];
    // A report that names no results file is of no use, whatever the index beside it names.
    const unnamedReport = store.entryOf(unnamed).replace(/\.idx$/, '.report.json');
    const { path: _named, ...rest } = JSON.parse(readFileSync(unnamedReport, 'utf8'));
    writeFileSync(unnamedReport, JSON.stringify(rest));
    rmSync(join(root, 'gone'), { recursive: true });
    // Another file at the same path (a new inode), and one that gained lines since its report.
    writeFileSync(`${replaced}.new`, readFileSync(replaced));
    renameSync(`${replaced}.new`, replaced);
    writeFileSync(grown, `${JSON.stringify(makeRecord(SMALL_CONFIG, 20, 0, 'm', 'oracle'))}\n`, { flag: 'a' });
    // Temporary files as io's atomic writer names them, one left by a write an hour old or more.
    const stale = join(cache, `.${'a'.repeat(40)}.idx.4242.${'b'.repeat(8)}.tmp`);
    const fresh = join(cache, `.${'c'.repeat(40)}.report.json.4242.${'d'.repeat(8)}.tmp`);
    writeFileSync(stale, 'x');
    writeFileSync(fresh, 'x');
    utimesSync(stale, new Date(Date.now() - 2 * 3600_000), new Date(Date.now() - 2 * 3600_000));
    writeFileSync(join(cache, 'notes.txt'), 'not the store’s');
    const pruned = await new IndexStore(cache, 0).prune();
    expect(entryFiles(store, kept)).toEqual([true, true]);
    expect(entryFiles(store, gone)).toEqual([false, false]);
    expect(entryFiles(store, replaced)).toEqual([false, false]);
    // The index of a grown file is still of use (only what it gained is read); its report is not.
    expect(entryFiles(store, grown)).toEqual([true, false]);
    expect(entryFiles(store, unnamed)).toEqual([true, false]);
    expect([existsSync(stale), existsSync(fresh), existsSync(join(cache, 'notes.txt'))]).toEqual([false, true, true]);
    expect(pruned.removed).toBe(7);
  });

  it('keeps the folder under its cap, the least recently used going first, never the entry just written', async () => {
    const root = tempDir('bas-prune-');
    const cache = join(root, 'cache');
    const paths = ['a', 'b', 'c'].map((name) => {
      mkdirSync(join(root, name));
      return results(join(root, name), 20);
    });
    const store = new IndexStore(cache, 0);
    for (const p of paths) await keep(store, p);
    const bytes = readdirSync(cache).reduce((a, f) => a + statSync(join(cache, f)).size, 0);
    const [a, b, c] = paths as [string, string, string];
    age(store, a, 300);
    age(store, b, 200);
    age(store, c, 100);
    // Using a's index makes it the most recently used.
    expect(await new IndexStore(cache, 0).load(new RolloutIndex(a, BOUNDS), KEY)).toBe(true);
    const capped = new IndexStore(cache, 0, Math.ceil((bytes * 2) / 3) + 10);
    await capped.prune();
    expect([a, b, c].map((p) => entryFiles(store, p)[0])).toEqual([true, false, true]);
    // Past the cap after a write, the others go and the one written stays.
    const tiny = new IndexStore(cache, 0, 1);
    await keep(tiny, b);
    await tiny.capped;
    expect([a, b, c].map((p) => entryFiles(store, p)[0])).toEqual([false, true, false]);
  });

  it('is done by the server as it starts, before its background reads', async () => {
    const root = tempDir('bas-prune-');
    const cache = join(root, 'cache');
    mkdirSync(join(root, 'runs', 'gone'), { recursive: true });
    const store = new IndexStore(cache, 0);
    const gone = results(join(root, 'runs', 'gone'), 10);
    await keep(store, gone);
    rmSync(join(root, 'runs', 'gone'), { recursive: true });
    const server = await startViewServer({
      root: join(root, 'runs'),
      port: 0,
      host: '127.0.0.1',
      token: null,
      maxConnections: 8,
      indexDir: cache,
    });
    try {
      await server.pruned;
      expect(entryFiles(store, gone)).toEqual([false, false]);
    } finally {
      await server.close();
    }
  });
});
