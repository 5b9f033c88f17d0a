/**
 * `bas view` reads a run it opens once: the rollout index's first read folds the report's
 * summary as it goes (view/run-state.ts `followRead`), where it used to read the file a second time
 * through the report's reader. Counted as the bytes of results.jsonl read: those the index's
 * positioned reads return (src/io/open-file.ts's FileHandle) and a whole file for each pass of
 * the line reader every other read goes through (src/io/jsonl.ts). The report so made is the one
 * `bas report` makes, in every case the reader treats apart; a file that case cannot serve
 * (a damaged line) is read again by the report's reader, which names the line as before. The
 * diff of two runs takes their rows from the same index (src/view/diff-api.ts): a run already
 * opened is not read again for it.
 */
import { appendFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { Catalog } from '../../src/view/catalog.js';
import { diffAnswer } from '../../src/view/diff-api.js';
import { DIFF_ROWS, diffRuns } from '../../src/display/diff.js';
import { readListRows } from '../../src/report/list-rows.js';
import { readRun } from '../../src/report/read.js';
import { buildRunReport, renderRunReport } from '../../src/report/run-report.js';
import { makeRecord, SMALL_CONFIG, writeRun } from '../report/make-run.js';
import { tempDir } from '../support/cli.js';

const reads = vi.hoisted(() => ({ bytes: new Map<string, number>() }));

vi.mock('../../src/io/jsonl.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/io/jsonl.js')>();
  const { statSync: size } = await import('node:fs');
  return {
    ...real,
    // A pass of the line reader reads the whole file.
    boundedFileLineBatches: (path: string, ...rest: [number?, boolean?]) => {
      reads.bytes.set(path, (reads.bytes.get(path) ?? 0) + size(path).size);
      return real.boundedFileLineBatches(path, ...rest);
    },
  };
});

vi.mock('../../src/io/open-file.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/io/open-file.js')>();
  return {
    ...real,
    openNoFollowHandle: async (path: string) => {
      const fh = await real.openNoFollowHandle(path);
      const read = fh.read.bind(fh) as (...a: unknown[]) => Promise<{ bytesRead: number }>;
      return Object.assign(fh, {
        read: async (...a: unknown[]) => {
          const got = await read(...a);
          reads.bytes.set(path, (reads.bytes.get(path) ?? 0) + got.bytesRead);
          return got;
        },
      });
    },
  };
});

const choose = (i: number) => (i % 3 ? 'oracle' : 'blanket');

/** Opens run `id` under `root` as the page does (its rollouts, then its report, waited for); the report's text and the bytes of its results read. */
async function open(root: string, id: string): Promise<{ text: string | null; problem: string | null; read: number }> {
  reads.bytes.clear();
  const catalog = new Catalog(root);
  const run = (await catalog.run(id))!;
  await run.rollouts();
  const kept = await run.summary(true);
  return {
    text: kept?.text ?? null,
    problem: run.dataProblem,
    read: reads.bytes.get(join(root, id, 'results.jsonl')) ?? 0,
  };
}

/** The report `bas report` makes of the folder, the run named by its id under the root (as the viewer names it). */
async function reportText(dir: string): Promise<string> {
  return renderRunReport(buildRunReport({ ...(await readRun(dir, () => {})), dir: basename(dir) }));
}

const line = (i: number, rollout: number, choice: Parameters<typeof makeRecord>[4]) =>
  `${JSON.stringify(makeRecord(SMALL_CONFIG, i, rollout, 'm', choice))}\n`;

describe('bas view opens a run with one read of its results', () => {
  it('reads the file once for its index and its report, the report as bas report makes it', async () => {
    const root = tempDir('bas-view-once-');
    const dir = join(root, 'a');
    writeRun(dir, { n: 60, rollouts: 2, model: 'm', choose });
    const size = statSync(join(dir, 'results.jsonl')).size;
    const r = await open(root, 'a');
    expect(r.problem).toBeNull();
    expect(r.read).toBe(size);
    expect(r.text).toBe(await reportText(dir));
  });

  it('the cases the reader treats apart give the same report: re-runs, records set aside, a torn last line', async () => {
    const root = tempDir('bas-view-once-');
    const dir = join(root, 'a');
    // Tasks 0..9 errored, then re-run; a record past the run's 30 tasks; a line cut mid-write.
    writeRun(dir, { n: 30, model: 'm', choose: (i) => (i < 10 ? { error: 'timeout' } : choose(i)) });
    let more = '';
    for (let i = 0; i < 10; i++) more += line(i, 0, 'oracle');
    more += line(40, 0, 'oracle');
    appendFileSync(join(dir, 'results.jsonl'), `${more}{"index": 3, "rol`);
    const size = statSync(join(dir, 'results.jsonl')).size;
    const r = await open(root, 'a');
    expect(r.text).toBe(await reportText(dir));
    expect(r.text).toMatch(/1 record of [\s\S]*cannot belong/);
    expect(r.read).toBe(size);
  });

  it('a scored line of a pair followed by another (bas never writes one): read again by the report reader, same report', async () => {
    const root = tempDir('bas-view-once-');
    const dir = join(root, 'a');
    writeRun(dir, { n: 20, model: 'm', choose });
    appendFileSync(join(dir, 'results.jsonl'), line(4, 0, 'blanket'));
    const r = await open(root, 'a');
    expect(r.problem).toBeNull();
    expect(r.text).toBe(await reportText(dir));
  });

  it('a damaged line: the report is refused naming it, as bas report refuses it', async () => {
    const root = tempDir('bas-view-once-');
    const dir = join(root, 'a');
    writeRun(dir, { n: 10, model: 'm', choose, extraLines: ['{"not": "a record"}'] });
    appendFileSync(join(dir, 'results.jsonl'), line(10, 0, 'oracle'));
    const r = await open(root, 'a');
    const refused = await readRun(dir, () => {}).then(
      () => null,
      (err: Error) => err.message,
    );
    expect(refused).toMatch(/line 11 is not a rollout record/);
    expect(r.problem).toBe(refused);
    expect(r.text).toBeNull();
  });
});

describe('the diff of two runs reads no file the viewer has read', () => {
  const results = (root: string, id: string) => join(root, id, 'results.jsonl');
  const read = (root: string, id: string) => reads.bytes.get(results(root, id)) ?? 0;

  it('takes the rows of runs already opened from their indexes, and reads a run not opened once', async () => {
    const root = tempDir('bas-view-diff-');
    writeRun(join(root, 'a'), { n: 40, rollouts: 2, model: 'm', choose });
    writeRun(join(root, 'b'), { n: 40, rollouts: 2, model: 'n', choose: (i, r) => ((i + r) % 4 ? 'oracle' : 'slips') });
    writeRun(join(root, 'c'), { n: 40, rollouts: 2, model: 'o', choose: () => 'blanket' });
    const catalog = new Catalog(root);
    for (const id of ['a', 'b']) {
      const run = (await catalog.run(id))!;
      await run.rollouts();
      await run.summary(true);
    }
    reads.bytes.clear();
    const q = (a: string, b: string) => new URLSearchParams({ a, b });
    const d = await diffAnswer(catalog, q('a', 'b'));
    expect(read(root, 'a') + read(root, 'b')).toBe(0);
    // The same diff a read of each run's records gives.
    const rows = async (id: string) => readListRows(results(root, id), (await catalog.run(id))!.info);
    expect(d).toEqual(diffRuns(['a', 'b'], await rows('a'), await rows('b'), DIFF_ROWS));
    expect(d.flipped).toBeGreaterThan(0);

    // A run not opened yet: read once, for its index and its summary together.
    reads.bytes.clear();
    await diffAnswer(catalog, q('a', 'c'));
    const c = (await catalog.run('c'))!;
    await c.summary(true);
    expect(read(root, 'a')).toBe(0);
    expect(read(root, 'c')).toBe(statSync(results(root, 'c')).size);
    expect(c.report).not.toBeNull();
  });

  it('refuses a run with a damaged line, naming it', async () => {
    const root = tempDir('bas-view-diff-');
    writeRun(join(root, 'a'), { n: 10, model: 'm', choose });
    writeRun(join(root, 'b'), { n: 10, model: 'n', choose, extraLines: ['{"not": "a record"}'] });
    const refused = await diffAnswer(new Catalog(root), new URLSearchParams({ a: 'a', b: 'b' })).then(
      () => null,
      (err: Error & { status?: number }) => [err.status, err.message],
    );
    expect(refused).toEqual([
      409,
      expect.stringMatching(/^cannot read b: .*results\.jsonl: line 11 is not a rollout record/),
    ]);
  });
});
