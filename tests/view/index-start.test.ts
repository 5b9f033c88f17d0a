/**
 * At start, each kept index is checked once: the prune reads its header and compares the
 * results file's bytes (its first 64 KB and those before where reading stopped), and the load
 * that follows uses what the prune found instead of doing both again. The reads are counted
 * where they happen: the entries' headers (read at offset 0 of an `.idx`) and the opens of a
 * results file for its check (the index's own reads use another call).
 */
import { appendFileSync, statSync } from 'node:fs';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { Catalog } from '../../src/view/catalog.js';
import { IndexStore } from '../../src/view/index-store.js';
import { makeRecord, SMALL_CONFIG, writeRun } from '../report/make-run.js';
import { tempDir } from '../support/cli.js';

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  return { ...real, openSync: vi.fn(real.openSync) };
});
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  return { ...real, open: vi.fn(real.open) };
});

const realFs = await vi.importActual<typeof import('node:fs')>('node:fs');
const realFsp = await vi.importActual<typeof import('node:fs/promises')>('node:fs/promises');

/** Header reads of each entry, and checks of each results file, since the last reset. */
const headerReads = new Map<string, number>();
const resultsChecks = new Map<string, number>();
const bump = (m: Map<string, number>, k: string): void => void m.set(k, (m.get(k) ?? 0) + 1);

beforeEach(() => {
  vi.mocked(fs.openSync).mockImplementation(((path: fs.PathLike, ...rest: unknown[]) => {
    if (String(path).endsWith('results.jsonl')) bump(resultsChecks, String(path));
    return (realFs.openSync as (...a: unknown[]) => number)(path, ...rest);
  }) as typeof fs.openSync);
  vi.mocked(fsp.open).mockImplementation(async (path, ...rest) => {
    const fh = await realFsp.open(path, ...rest);
    if (String(path).endsWith('.idx')) {
      const read = fh.read.bind(fh) as (...a: unknown[]) => Promise<unknown>;
      fh.read = ((...a: unknown[]) => {
        if (a[3] === 0) bump(headerReads, String(path));
        return read(...a);
      }) as typeof fh.read;
    }
    return fh;
  });
});

/** Three runs under `runs`, each with its index kept in `cache`. */
async function keptRuns(): Promise<{ runs: string; cache: string; ids: string[] }> {
  const root = tempDir('bas-view-start-');
  const runs = join(root, 'runs');
  const cache = join(root, 'cache');
  const ids = ['a', 'b', 'c'];
  for (const id of ids) writeRun(join(runs, id), { n: 30, model: 'm', choose: () => 'oracle' });
  const first = new Catalog(runs, { store: new IndexStore(cache, 0) });
  for (const id of ids) await (await first.run(id))!.wholeIndex();
  return { runs, cache, ids };
}

/** Starts as the server does: the prune, then each run's index; with each index's rollouts. */
async function start(runs: string, cache: string, ids: string[]): Promise<number[]> {
  headerReads.clear();
  resultsChecks.clear();
  const store = new IndexStore(cache, 0);
  await store.prune();
  const catalog = new Catalog(runs, { store });
  const counts: number[] = [];
  for (const id of ids) counts.push((await (await catalog.run(id))!.wholeIndex()).rollouts);
  return counts;
}

describe('a start with kept indexes', () => {
  it('reads each entry’s header once and checks each results file once', async () => {
    const { runs, cache, ids } = await keptRuns();
    expect(await start(runs, cache, ids)).toEqual([30, 30, 30]);
    expect([...headerReads.values()]).toEqual([1, 1, 1]);
    expect([...resultsChecks.values()]).toEqual([1, 1, 1]);
  });

  it('checks again at the load a results file that changed since the prune', async () => {
    const { runs, cache, ids } = await keptRuns();
    headerReads.clear();
    resultsChecks.clear();
    const store = new IndexStore(cache, 0);
    await store.prune();
    // Run b gained a line after the prune: its kept index is checked again, and then read on.
    appendFileSync(
      join(runs, 'b', 'results.jsonl'),
      `${JSON.stringify(makeRecord(SMALL_CONFIG, 30, 0, 'm', 'oracle'))}\n`,
    );
    const catalog = new Catalog(runs, { store });
    const b = join(runs, 'b', 'results.jsonl');
    for (const id of ids) {
      const index = await (await catalog.run(id))!.wholeIndex();
      expect(index.indexedBytes).toBe(statSync(join(runs, id, 'results.jsonl')).size);
    }
    expect(resultsChecks.get(b)).toBe(2);
    expect([...resultsChecks].filter(([p]) => p !== b).map(([, n]) => n)).toEqual([1, 1]);
  });
});
