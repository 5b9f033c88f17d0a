/**
 * The files of `--index-dir` are the user's folder, not trusted (issue 36, defect 8): a FIFO
 * where an entry should be froze the server, and a link to /dev/zero took it to 1 GB. An entry
 * that is a link, a FIFO or a device is a miss, never read; the prune leaves it alone.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IndexStore, reportKeyOf } from '../../src/view/index-store.js';
import { RolloutIndex } from '../../src/view/rollout-index.js';
import { makeRecord, SMALL_CONFIG } from '../report/make-run.js';
import { tempDir } from '../support/cli.js';

function setUp(): { results: string; cache: string; store: IndexStore } {
  const dir = tempDir('bas-view-index-dir-');
  const results = join(dir, 'results.jsonl');
  writeFileSync(results, `${JSON.stringify(makeRecord(SMALL_CONFIG, 0, 0, 'm', 'oracle'))}\n`);
  const cache = join(dir, 'cache');
  mkdirSync(cache);
  return { results, cache, store: new IndexStore(cache, 0) };
}

describe('special files in the index folder', () => {
  it('a FIFO at an entry is a miss at once, and the file is read as if there were none', async () => {
    const { results, store } = setUp();
    const entry = store.entryOf(results);
    execFileSync('mkfifo', [entry]);
    execFileSync('mkfifo', [entry.replace(/\.idx$/, '.report.json')]);
    const index = new RolloutIndex(results, null);
    expect(await store.load(index, 'null')).toBe(false);
    await index.refresh();
    expect(index.rollouts).toBe(1);
    expect(store.loadReport(results, reportKeyOf(results, 'none', 'complete')!)).toBeNull();
    await store.prune();
    expect(existsSync(entry)).toBe(true);
  });

  it('a link to /dev/zero at an entry is never read', async () => {
    const { results, store } = setUp();
    const entry = store.entryOf(results);
    symlinkSync('/dev/zero', entry);
    symlinkSync('/dev/zero', entry.replace(/\.idx$/, '.report.json'));
    expect(await store.load(new RolloutIndex(results, null), 'null')).toBe(false);
    expect(store.loadReport(results, reportKeyOf(results, 'none', 'complete')!)).toBeNull();
    await store.prune();
    expect(existsSync(entry)).toBe(true);
  });
});
