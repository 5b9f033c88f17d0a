/**
 * A kept index is written by io's atomic writer (atomic-file.ts), not a copy of it: a write
 * that makes no progress is given up at once instead of tried forever, the temporary file is
 * the writer's own (tracked, so a stop signal removes it; named so the prune knows it), and a
 * failed write leaves neither a temporary file nor a half entry.
 */
import * as fs from 'node:fs';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RunReport } from '../../src/report/run-report.js';
import { IndexStore, reportKeyOf } from '../../src/view/index-store.js';
import { RolloutIndex } from '../../src/view/rollout-index.js';
import { makeRecord, SMALL_CONFIG } from '../report/make-run.js';
import { tempDir } from '../support/cli.js';

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  return { ...real, writeSync: vi.fn(real.writeSync), fsyncSync: vi.fn(real.fsyncSync) };
});

const BOUNDS = { n: 100, rollouts: 1, shard: null, indices: null };
const KEY = JSON.stringify(BOUNDS);

/** A results file of `n` rollouts in a fresh folder, and a store in that folder's `cache`. */
function setUp(n: number): { path: string; cache: string; store: IndexStore } {
  const dir = tempDir('bas-view-write-');
  const path = join(dir, 'results.jsonl');
  let out = '';
  for (let i = 0; i < n; i++) out += `${JSON.stringify(makeRecord(SMALL_CONFIG, i, 0, 'm', 'oracle'))}\n`;
  writeFileSync(path, out);
  const cache = join(dir, 'cache');
  return { path, cache, store: new IndexStore(cache, 0) };
}

/** Reads `path` whole through `store`, which keeps its index at the end of the read. */
async function index(path: string, store: IndexStore): Promise<RolloutIndex> {
  const ix = new RolloutIndex(path, BOUNDS);
  await store.load(ix, KEY);
  ix.checkpoint = (i, done) => store.checkpoint(i, KEY, done);
  await ix.refresh();
  return ix;
}

const real = await vi.importActual<typeof import('node:fs')>('node:fs');
const writeSync = vi.mocked(fs.writeSync);
const fsyncSync = vi.mocked(fs.fsyncSync);
beforeEach(() => {
  writeSync.mockImplementation(real.writeSync);
  fsyncSync.mockClear();
});

describe('writing a kept index', () => {
  it('is private to its user, with no temporary file left once it is in place', async () => {
    const { path, cache, store } = setUp(20);
    await index(path, store);
    expect(statSync(store.entryOf(path)).mode & 0o777).toBe(0o600);
    expect(readdirSync(cache).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('does not wait for a flush to disk (a torn entry is a miss), its index nor its report', async () => {
    const { path, store } = setUp(20);
    await index(path, store);
    expect(existsSync(store.entryOf(path))).toBe(true);
    const key = reportKeyOf(path, 'run.json', 'complete')!;
    store.saveReport(path, key, { report: {} as RunReport, text: 'report', figures: null });
    expect(store.loadReport(path, key)?.text).toBe('report');
    expect(fsyncSync).not.toHaveBeenCalled();
  });

  it('gives up at the first write that makes no progress, leaving nothing behind', async () => {
    const { path, cache, store } = setUp(20);
    let stuck = 0;
    // A disk that takes nothing: every write to the cache returns 0 bytes written (at most 50
    // times, so a writer that tries forever fails here rather than hanging the test).
    writeSync.mockImplementation(() => {
      if (++stuck > 50) throw new Error('tried forever');
      return 0;
    });
    await index(path, store);
    expect(stuck).toBe(1);
    expect(existsSync(store.entryOf(path))).toBe(false);
    expect(readdirSync(cache)).toEqual([]);
  });
});

describe('a stop signal while an index is written', () => {
  const saved = new Map<string, Array<(...a: unknown[]) => void>>();
  beforeEach(() => {
    // The test runner's own handlers are set aside: here the viewer is the process.
    for (const s of ['SIGINT', 'SIGTERM'] as const) {
      saved.set(s, process.listeners(s) as Array<(...a: unknown[]) => void>);
      process.removeAllListeners(s);
    }
  });
  afterEach(() => {
    vi.restoreAllMocks();
    for (const s of ['SIGINT', 'SIGTERM'] as const) {
      process.removeAllListeners(s);
      for (const f of saved.get(s) ?? []) process.on(s, f);
    }
  });

  it('removes its temporary file before the process dies of the signal', async () => {
    const { path, cache, store } = setUp(20);
    let atDeath: string[] | null = null;
    vi.spyOn(process, 'kill').mockImplementation(() => {
      atDeath = readdirSync(cache);
      return true;
    });
    const columns = RolloutIndex.prototype.columnBytes;
    vi.spyOn(RolloutIndex.prototype, 'columnBytes').mockImplementation(function (this: RolloutIndex) {
      // Ctrl-C as the columns are being written (no command is under way: the process dies of it).
      process.emit('SIGINT', 'SIGINT');
      return columns.call(this);
    });
    await index(path, store);
    expect(atDeath).toEqual([]);
  });
});
