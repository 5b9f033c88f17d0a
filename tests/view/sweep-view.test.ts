/**
 * GET /api/sweep answers from the plan the catalog's walk read (sweep-view.ts): sweep.json is
 * read once for an answer, not once by the walk and again by the answer. A plan that cannot be
 * read is a 409 naming why. The clock is held still, so the walk of this request is its only one.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as sweepFile from '../../src/runfile/sweep-file.js';
import { Catalog } from '../../src/view/catalog.js';
import { sweepAnswer } from '../../src/view/sweep-view.js';
import { writeRun, writeSweepPlan } from '../report/make-run.js';
import { tempDir } from '../support/cli.js';

vi.mock('../../src/runfile/sweep-file.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/runfile/sweep-file.js')>();
  return { ...real, readSweepPlan: vi.fn(real.readSweepPlan) };
});

/** A sweep folder `sw` under a fresh root: two points run, the third not started. */
function sweepRoot(): string {
  const root = tempDir('bas-view-sweep-');
  const sw = join(root, 'sw');
  for (const rows of [12, 24])
    writeRun(join(sw, `rows-${rows}`), { n: 10, model: 'builtin:oracle', choose: () => 'oracle' });
  writeSweepPlan(sw, [12, 24, 36]);
  return root;
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.mocked(sweepFile.readSweepPlan).mockClear();
});
afterEach(() => vi.useRealTimers());

describe('/api/sweep', () => {
  it('reads the sweep plan once for an answer', async () => {
    const catalog = new Catalog(sweepRoot());
    const answer = (await sweepAnswer(catalog, new URLSearchParams({ sweep: 'sw' }))) as {
      points: Array<{ status: string }>;
    };
    expect(answer.points.map((p) => p.status)).toEqual(['complete', 'complete', 'not started']);
    expect(vi.mocked(sweepFile.readSweepPlan)).toHaveBeenCalledTimes(1);
  });

  it('answers 409, naming why, when the plan cannot be read', async () => {
    const root = sweepRoot();
    writeFileSync(join(root, 'sw', 'sweep.json'), '{ not json');
    const asked = sweepAnswer(new Catalog(root), new URLSearchParams({ sweep: 'sw' }));
    await expect(asked).rejects.toMatchObject({
      status: 409,
      message: expect.stringMatching(/sweep\.json is not valid JSON/),
    });
  });
});

type Sections = Array<Array<Record<string, unknown>>>;

describe("/api/sweep's sections: the tables of bas sweep --html", () => {
  it('holds the points table, the figures left out with a note on where they are drawn', async () => {
    const answer = (await sweepAnswer(new Catalog(sweepRoot()), new URLSearchParams({ sweep: 'sw' }))) as {
      sections: Sections;
    };
    const blocks = answer.sections.flat();
    expect(blocks.some((b) => 'figures' in b)).toBe(false);
    const points = blocks.find((b) => 'table' in b) as { table: { rows: string[][] } } | undefined;
    expect(points?.table.rows).toHaveLength(2);
    expect(blocks.at(-1)).toEqual({ small: expect.stringContaining('--bundle') });
  });

  it("keeps the figures for a page that holds them (a bundle's templates)", async () => {
    const { Figures } = await import('../../src/report/html/blocks.js');
    const figures = new Figures();
    const answer = (await sweepAnswer(new Catalog(sweepRoot()), new URLSearchParams({ sweep: 'sw' }), figures)) as {
      sections: Sections;
    };
    const named = answer.sections.flat().filter((b) => 'figures' in b) as Array<{ figures: number[] }>;
    expect(named.length).toBeGreaterThan(0);
    for (const n of named.flatMap((b) => b.figures)) expect(figures.templates()).toContain(`id="bas-figure-${n}"><svg`);
  });
});
