/**
 * Two runs on different tasks (another seed, fault rate or row count) share task indices but
 * not ledgers: task 3 is another ledger in each, so pairing their rollouts would list every
 * one as flipped. `bas compare` refuses such a pairing; the viewer's diff, and a bundle's,
 * say why instead of listing anything (found with the real model's runs: a clean quarter
 * against the default one read "30 flipped").
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffAnswer } from '../../src/view/diff-api.js';
import { Catalog } from '../../src/view/catalog.js';
import { makeRecord, SMALL_CONFIG, writeRun } from '../report/make-run.js';
import { bas, tempDir } from '../support/cli.js';

const choose = (i: number) => (i % 2 ? 'oracle' : 'blanket');

function folder(): string {
  const root = tempDir('bas-diff-tasks-');
  writeRun(join(root, 'a'), { n: 8, model: 'm', choose });
  writeRun(join(root, 'b'), { n: 8, model: 'm', choose, config: { ...SMALL_CONFIG, seed: SMALL_CONFIG.seed + 1 } });
  writeRun(join(root, 'c'), { n: 8, model: 'n', choose: () => 'oracle' });
  return root;
}

describe('a diff of two runs', () => {
  it('of runs on different tasks pairs nothing, and says why', async () => {
    const catalog = new Catalog(folder());
    const d = await diffAnswer(catalog, new URLSearchParams({ a: 'a', b: 'b' }));
    expect(d.rows).toEqual([]);
    expect(d.flipped).toBe(0);
    expect(d.refused).toMatch(/different tasks .*seed/);
    // On the same tasks, it pairs them.
    const same = await diffAnswer(catalog, new URLSearchParams({ a: 'a', b: 'c' }));
    expect(same.refused).toBeNull();
    expect(same.shared).toBe(8);
    expect(same.flipped).toBeGreaterThan(0);
  });

  it('in a bundle says the same', async () => {
    const root = folder();
    const file = join(root, 'bundle.html');
    expect((await bas(['view', root, '--bundle', file])).code).toBe(0);
    const data = JSON.parse(
      /<script type="application\/json" id="bas-data">(.*?)<\/script>/s.exec(readFileSync(file, 'utf8'))![1]!,
    );
    // The bundle's run answers carry each run's tasks, which the app's diff checks.
    expect(data.runs.b.run.report.run.task.seed).toBe(SMALL_CONFIG.seed + 1);
    expect(makeRecord(SMALL_CONFIG, 0, 0, 'm', 'oracle').config).toEqual(data.runs.a.run.report.run.task);
  });
});
